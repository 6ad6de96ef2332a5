package dev.gadget.core.store.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The secondary indexes of {@link IndexedState}: sets of ids under a key (a user, a user and
 * project, a user and workspace), kept sorted and never left empty, and their lookups.
 */
final class Indexes {
  private Indexes() {}

  /** The key of an index on two fields. */
  static String key(String a, String b) {
    return a + '\n' + b;
  }

  static void index(Map<String, NavigableSet<String>> index, String key, String id) {
    index.computeIfAbsent(key, k -> new TreeSet<>()).add(id);
  }

  static void unindex(Map<String, NavigableSet<String>> index, String key, String id) {
    NavigableSet<String> ids = index.get(key);
    if (ids != null && ids.remove(id) && ids.isEmpty()) {
      index.remove(key);
    }
  }

  /** The entities of {@code ids} in their order, looked up; empty for {@code null}. */
  static <T> List<T> resolve(NavigableSet<String> ids, Function<String, T> lookup) {
    if (ids == null) {
      return List.of();
    }
    List<T> out = new ArrayList<>(ids.size());
    for (String id : ids) {
      out.add(lookup.apply(id));
    }
    return out;
  }
}
