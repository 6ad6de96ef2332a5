package dev.gadget.examples.bench;

import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ProviderStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store that counts the writes made to it (every call that is not a read), by name: what a
 * turn costs the store. Writes that no turn makes (a user, a token, a project or a chat created,
 * a drone registered) are not counted, nor the one write a chat costs when its first turn binds
 * it to a drone's workspace (once per chat: {@link #byCall()} shows it). The real store behind
 * does the work.
 */
final class CountingStore {
  private static final Set<String> READS = Set.of("close", "hashCode", "equals", "toString",
      "providers");
  private static final Set<String> NOT_TURNS = Set.of("createUser", "saveToken",
      "createProject", "createSession", "saveDrone", "setSessionWorkspace");

  final Map<String, AtomicLong> writes = new ConcurrentHashMap<>();
  final ChatStore store;

  CountingStore(ChatStore inner) {
    this.store = (ChatStore) proxy(inner);
  }

  /** The writes turns made so far. */
  long total() {
    return writes.entrySet().stream().filter(e -> !NOT_TURNS.contains(e.getKey()))
        .mapToLong(e -> e.getValue().get()).sum();
  }

  /** Every write so far, by call. */
  Map<String, Long> byCall() {
    Map<String, Long> out = new java.util.TreeMap<>();
    writes.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  private Object proxy(Object inner) {
    return Proxy.newProxyInstance(CountingStore.class.getClassLoader(),
        new Class<?>[] {ChatStore.class, ProviderStore.class}, (p, method, args) -> {
          String name = method.getName();
          boolean read = READS.contains(name) || name.startsWith("find")
              || name.startsWith("list") || name.startsWith("get");
          if (!read) {
            writes.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
          }
          try {
            Object result = method.invoke(inner, args);
            // the provider store a store hands out is counted as well
            return name.equals("providers") && result != null ? proxy(result) : result;
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
