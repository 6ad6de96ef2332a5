package dev.gadget.core;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The Jackson configuration every Gadget wire format and store uses.
 *
 * <p>Instants are written as ISO-8601 strings ({@code 2026-04-29T19:30:00Z}); {@code null} fields
 * are omitted; unknown fields are ignored so that newer peers can add fields. Core depends on
 * jackson-databind only, so the {@code Instant} support is built in here rather than taken from
 * the jsr310 module.
 *
 * <p>{@link #mapper()} returns a shared, fully configured and thread-safe instance; do not
 * reconfigure it. Use {@link #newMapper()} for a private copy.
 */
public final class GadgetJson {
  private static final ObjectMapper SHARED = newMapper();

  private GadgetJson() {}

  /** The shared mapper. Thread-safe; must not be reconfigured. */
  public static ObjectMapper mapper() {
    return SHARED;
  }

  /**
   * A node that stands for JSON text already written ({@code json} must be one valid JSON value):
   * Jackson writes it as it is, and so does a transport, without parsing it into a tree first.
   * A relayed event is sent on this way. Not a tree: read it with {@link #rawText}.
   */
  public static JsonNode raw(String json) {
    return JsonNodeFactory.instance.rawValueNode(new RawValue(json));
  }

  /** The text of a {@link #raw} node, or {@code null} for any other node. */
  public static String rawText(JsonNode node) {
    return node instanceof POJONode p && p.getPojo() instanceof RawValue r
        && r.rawValue() instanceof String text ? text : null;
  }

  /** A new mapper with Gadget's configuration, for callers that need to customise it. */
  public static ObjectMapper newMapper() {
    SimpleModule time = new SimpleModule("gadget-time");
    time.addSerializer(Instant.class, new InstantSerializer());
    time.addDeserializer(Instant.class, new InstantDeserializer());
    return new ObjectMapper()
        .registerModule(time)
        .setSerializationInclusion(JsonInclude.Include.NON_NULL)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  private static final class InstantSerializer extends JsonSerializer<Instant> {
    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider serializers)
        throws IOException {
      gen.writeString(value.toString());
    }
  }

  private static final class InstantDeserializer extends JsonDeserializer<Instant> {
    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken().isNumeric()) {
        return Instant.ofEpochMilli(p.getLongValue());
      }
      String text = p.getValueAsString();
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        return (Instant) ctxt.handleWeirdStringValue(Instant.class, text, "not an ISO-8601 instant");
      }
    }
  }
}
