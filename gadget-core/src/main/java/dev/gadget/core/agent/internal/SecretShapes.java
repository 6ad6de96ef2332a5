package dev.gadget.core.agent.internal;

import java.util.regex.Pattern;

/**
 * What a secret looks like when nobody said it was one: a Gadget token ({@code gdt_…}), a
 * provider key ({@code sk-…}, {@code pk-…}, {@code rk-…}), a bearer credential, and the
 * credentials part of a URL. The drone's log writes each as {@code [secret]}; the agent's
 * commands never get an environment variable that holds one.
 */
public final class SecretShapes {
  /** A token, key or bearer credential anywhere in a text. */
  public static final Pattern SHAPED = Pattern.compile(
      "gdt_[A-Za-z0-9_-]+|\\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|(?i:bearer)\\s+[A-Za-z0-9._~+/=-]{8,}");
  /** The {@code user:password@} of a URL; group 1 is the scheme with its {@code ://}. */
  public static final Pattern URL_CREDENTIALS =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^/@\\s]*@");

  private SecretShapes() {}

  /** Whether {@code text} holds something shaped like a secret. */
  public static boolean holdsOne(String text) {
    return SHAPED.matcher(text).find() || URL_CREDENTIALS.matcher(text).find();
  }
}
