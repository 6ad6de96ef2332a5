package dev.gadget.core.agent.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The names of the policy enums on the command line and the wire: {@code workspace-write}. */
public final class PolicyNames {
  private PolicyNames() {}

  /** {@code WORKSPACE_WRITE} as {@code workspace-write}. */
  public static String of(Enum<?> policy) {
    return policy.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The constant of {@code type} named {@code name} (any case, {@code _} or {@code -}).
   *
   * @throws IllegalArgumentException naming the policies, such as {@code no sandbox policy
   *     "open"; the policies are read-only, workspace-write and full-access}
   */
  public static <E extends Enum<E>> E parse(Class<E> type, String name, String what) {
    String n = name == null ? "" : name.strip().toUpperCase(Locale.ROOT).replace('-', '_');
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(n)) {
        return e;
      }
      names.add(of(e));
    }
    String last = names.remove(names.size() - 1);
    throw new IllegalArgumentException("no " + what + " \"" + name + "\"; the policies are "
        + String.join(", ", names) + " and " + last);
  }
}
