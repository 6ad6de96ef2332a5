package dev.gadget.core.server;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Which hosts a user may name as the base URL of an LLM provider they add: the server itself
 * sends requests there (the model list), so without a bound any user could make it fetch from a
 * service on its loopback, its private network or a cloud's metadata address. The operator's own
 * provider (the server's default) is never checked.
 *
 * <p>{@link #publicOnly()} (the default) refuses every address that is not public: loopback,
 * private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), link-local (169.254/16, fe80::/10,
 * where cloud metadata lives), unspecified and multicast. {@link #allowPrivate()} lets loopback
 * and private addresses through (a local Ollama), never link-local ones. {@link #onlyThese} is an
 * allow-list: only the hosts it names ({@code host} or {@code host:port}), whatever their
 * addresses. A host is resolved at each check and every address it resolves to must pass. Immutable.
 */
public final class ProviderHosts {
  private static final ProviderHosts PUBLIC = new ProviderHosts(Set.of(), false);

  private final Set<String> listed;
  private final boolean privateAllowed;

  private ProviderHosts(Set<String> listed, boolean privateAllowed) {
    this.listed = Set.copyOf(listed);
    this.privateAllowed = privateAllowed;
  }

  /** Public addresses only (the default). */
  public static ProviderHosts publicOnly() {
    return PUBLIC;
  }

  /** Public, loopback and private addresses; never link-local, unspecified or multicast. */
  public static ProviderHosts allowPrivate() {
    return new ProviderHosts(Set.of(), true);
  }

  /**
   * Only {@code hosts}, each a host name or address with an optional {@code :port} (any case);
   * their addresses are not checked.
   *
   * @throws IllegalArgumentException for an empty list or a blank host
   */
  public static ProviderHosts onlyThese(String... hosts) {
    Set<String> set = new LinkedHashSet<>();
    for (String h : hosts) {
      if (h == null || h.isBlank()) {
        throw new IllegalArgumentException("a provider host is blank");
      }
      set.add(h.strip().toLowerCase(Locale.ROOT));
    }
    if (set.isEmpty()) {
      throw new IllegalArgumentException("the list of provider hosts is empty");
    }
    return new ProviderHosts(set, false);
  }

  /**
   * Why a user may not name {@code url} as a provider, in words for them; empty when they may.
   * Resolves its host.
   */
  public Optional<String> refusal(URI url) {
    String host = url.getHost();
    if (host == null) {
      return Optional.of("the provider's URL " + url + " names no host");
    }
    String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    String name = bare.toLowerCase(Locale.ROOT);
    if (!listed.isEmpty()) {
      int port = url.getPort() >= 0 ? url.getPort()
          : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
      return listed.contains(name) || listed.contains(name + ":" + port)
          || listed.contains("[" + name + "]:" + port) ? Optional.empty()
          : Optional.of("this server lets users add providers on " + String.join(", ", listed)
              + " only, not " + host + (url.getPort() >= 0 ? ":" + url.getPort() : ""));
    }
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(bare);
    } catch (UnknownHostException | SecurityException e) {
      return Optional.of("cannot find the provider's host " + host);
    }
    for (InetAddress a : addresses) {
      String kind = kind(a);
      boolean allowable = "loopback".equals(kind) || "private".equals(kind);
      if (kind != null && !(privateAllowed && allowable)) {
        return Optional.of("the provider's host " + host + " is " + (host.equals(
            a.getHostAddress()) ? "" : "at " + a.getHostAddress() + ", ") + "a " + kind
            + " address, which users may not name on this server"
            + (allowable ? " (its operator can allow private providers: gadget server "
            + "--allow-private-providers, or list hosts with --provider-hosts)" : ""));
      }
    }
    return Optional.empty();
  }

  /** What is not public about {@code a}: its kind in words, or null when it is public. */
  static String kind(InetAddress a) {
    byte[] b = a.getAddress();
    if (a.isAnyLocalAddress() || a instanceof Inet4Address && b[0] == 0) {
      return "unspecified";
    }
    if (a.isLoopbackAddress()) {
      return "loopback";
    }
    if (a.isLinkLocalAddress()) {
      return "link-local";
    }
    if (a.isMulticastAddress()) {
      return "multicast";
    }
    if (a.isSiteLocalAddress()) {
      return "private";
    }
    if (a instanceof Inet4Address && (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) {
      return "private"; // 100.64.0.0/10, carrier-grade NAT
    }
    if (a instanceof Inet6Address && (b[0] & 0xfe) == 0xfc) {
      return "private"; // fc00::/7, unique local
    }
    if (a instanceof Inet6Address) {
      // an IPv4 address inside: ::a.b.c.d, 64:ff9b::a.b.c.d (NAT64), 2002:aabb:ccdd:: (6to4)
      int at = zeros(b, 0, 12) ? 12 : b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff
          && (b[3] & 0xff) == 0x9b && zeros(b, 4, 12) ? 12
          : b[0] == 0x20 && b[1] == 0x02 ? 2 : -1;
      if (at >= 0) {
        try {
          String inner = kind(InetAddress.getByAddress(Arrays.copyOfRange(b, at,
              at + 4)));
          return inner == null ? null : inner + " (inside an IPv6 address)";
        } catch (UnknownHostException e) {
          return "unspecified";
        }
      }
    }
    return null;
  }

  private static boolean zeros(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return listed.isEmpty() ? (privateAllowed ? "ProviderHosts{public, private}"
        : "ProviderHosts{public}") : "ProviderHosts" + listed;
  }
}
