package dev.gadget.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every payload record reads from its smallest form (only the fields its rules require), a
 * field that is required says so when it is missing, and a peer of the previous release (a
 * turn's end with the stats {@code TurnStats} first had) is understood.
 */
class PayloadCompatibilityTest {
  static Stream<Class<?>> payloads() {
    List<Class<?>> all = new ArrayList<>();
    for (Class<?> holder : List.of(Payloads.class, ChangePayloads.class, ApprovalPayloads.class,
        WorkspacePayloads.class, ProviderEvents.class)) {
      for (Class<?> c : holder.getDeclaredClasses()) {
        if (c.isRecord()) {
          all.add(c);
        }
      }
    }
    return all.stream();
  }

  /**
   * The smallest form of a payload: each field its rules require, with a plausible value (a
   * model record inside it, which has no rules, whole).
   */
  static ObjectNode smallest(Class<?> type) {
    ObjectNode o = GadgetJson.mapper().createObjectNode();
    for (RecordComponent rc : type.getRecordComponents()) {
      Rule rule = rc.getAnnotation(Rule.class);
      if (rule != null && rule.required()) {
        o.set(name(rc), sample(rc.getGenericType(), rule));
      }
    }
    return o;
  }

  /** A model record with every field. */
  static ObjectNode whole(Class<?> type) {
    ObjectNode o = GadgetJson.mapper().createObjectNode();
    for (RecordComponent rc : type.getRecordComponents()) {
      o.set(name(rc), sample(rc.getGenericType(), rc.getAnnotation(Rule.class)));
    }
    return o;
  }

  private static String name(RecordComponent rc) {
    var p = rc.getAccessor().getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
    return p != null && !p.value().isEmpty() ? p.value() : rc.getName();
  }

  private static JsonNode sample(Type type, Rule rule) {
    var f = GadgetJson.mapper().getNodeFactory();
    Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    if (raw == String.class) {
      return f.textNode(rule != null && rule.oneOf().length > 0 ? rule.oneOf()[0] : "s1");
    }
    if (raw == long.class || raw == Long.class || raw == int.class || raw == Integer.class) {
      return f.numberNode(1);
    }
    if (raw == double.class || raw == Double.class) {
      return f.numberNode(1.5);
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return f.booleanNode(true);
    }
    if (raw == Instant.class) {
      return f.textNode("2026-11-28T09:00:00Z");
    }
    if (raw.isEnum()) {
      return GadgetJson.mapper().valueToTree(raw.getEnumConstants()[0]);
    }
    if (raw.isRecord()) {
      return raw.getPackageName().endsWith(".protocol") ? smallest(raw) : whole(raw);
    }
    if (Collection.class.isAssignableFrom(raw)) {
      return f.arrayNode();
    }
    if (Map.class.isAssignableFrom(raw)) {
      return f.objectNode();
    }
    return f.objectNode();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("payloads")
  void everyPayloadReadsFromItsSmallestFormAndSaysWhatIsRequired(Class<?> type)
      throws Exception {
    ObjectNode min = smallest(type);
    Object read = Protocol.payload(List.of(min), type);
    assertThat(read).as(type.getSimpleName() + " from " + min).isNotNull();
    for (RecordComponent rc : type.getRecordComponents()) {
      Rule rule = rc.getAnnotation(Rule.class);
      if (rule == null || !rule.required()) {
        continue;
      }
      ObjectNode without = min.deepCopy();
      without.remove(name(rc));
      Throwable t = catchThrowable(() -> Protocol.payload(List.of(without), type));
      assertThat(t).as(type.getSimpleName() + " without " + name(rc))
          .isInstanceOf(PayloadException.class)
          .hasMessage("\"" + name(rc) + "\" is required");
    }
  }

  @Test
  void aTurnsEndWithTheStatsTheFirstReleaseSentIsUnderstood() throws Exception {
    JsonNode first = GadgetJson.mapper().readTree("{\"turnId\": \"t1\", \"seq\": 9, "
        + "\"status\": \"finished\", \"stats\": {\"promptTokens\": 120, "
        + "\"completionTokens\": 30, \"thinkingTokenCount\": 5, \"toolCallCount\": 2, "
        + "\"llmCalls\": 3, \"durationMs\": 4200}}");
    Payloads.WorkOrderComplete end = Protocol.payload(List.of(first),
        Payloads.WorkOrderComplete.class);
    assertThat(end.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(end.stats()).isEqualTo(new TurnStats(120, 30, 5, 2, 3, 4200));
    assertThat(end.stats().contextTokens()).isZero();
    assertThat(end.stats().crashRetries()).isZero();
  }

  @Test
  void aNullNumberAndAMissingSequenceNumberAreStillRefusedInWords() throws Exception {
    JsonNode nullCount = GadgetJson.mapper().readTree("{\"turnId\": \"t1\", \"seq\": 9, "
        + "\"status\": \"finished\", \"stats\": {\"promptTokens\": null}}");
    assertThat(catchThrowable(() -> Protocol.payload(List.of(nullCount),
        Payloads.WorkOrderComplete.class))).hasMessage(
        "\"stats.promptTokens\" must be a whole number; got null");
    JsonNode noSeq = GadgetJson.mapper().readTree("{\"turnId\": \"t1\", \"data\": \"x\"}");
    assertThat(catchThrowable(() -> Protocol.payload(List.of(noSeq),
        Payloads.TextEvent.class))).hasMessage("\"seq\" is required");
  }
}
