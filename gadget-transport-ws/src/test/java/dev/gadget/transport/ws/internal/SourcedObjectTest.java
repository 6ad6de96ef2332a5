package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * An object read from a packet is written again as it came while it holds what it was read with,
 * and from its tree as soon as anything in it changed.
 */
class SourcedObjectTest {
  /** Spaces and escapes Jackson would not write: seen in the output only if the text is reused. */
  private static final String TOKEN =
      "{ \"turnId\" : \"t1\", \"seq\":7 ,\"data\":\"caf\\u00e9 \\\"x\\\"\", \"ok\": true }";

  @Test
  void anUnchangedObjectIsWrittenAsItWasRead() {
    JsonNode packet = JsonTree.read("[\"response\", " + TOKEN + "]", 0);
    assertThat(packet.get(1)).isInstanceOf(SourcedObject.class);
    assertThat(written(packet)).isEqualTo("[\"response\"," + TOKEN + "]");
    assertThat(SocketCodec.hasBinary(packet)).isFalse();
  }

  @Test
  void aChangedObjectIsWrittenFromItsTree() {
    Map<String, Consumer<ObjectNode>> changes = Map.of(
        "a value put", o -> o.put("data", "y"),
        "a field added", o -> o.put("more", 1),
        "a field removed", o -> o.remove("seq"),
        "an equal value, not the same node", o -> o.set("turnId", new TextNode("t1")),
        "a value set through its entry", o -> o.properties().iterator().next()
            .setValue(new TextNode("t2")),
        "removed through the iterator", o -> {
          Iterator<Map.Entry<String, JsonNode>> fields = o.fields();
          fields.next();
          fields.remove();
        },
        "moved to the end", o -> o.set("turnId", o.remove("turnId")),
        "a binary value", o -> o.put("data", new byte[] {1, 2}));
    changes.forEach((what, change) -> {
      ObjectNode object = (ObjectNode) JsonTree.read(TOKEN, 0);
      change.accept(object);
      assertThat(written(object)).as(what).isEqualTo(object.toString());
      assertThat(SocketCodec.hasBinary(object)).as(what).isEqualTo(what.equals("a binary value"));
    });
  }

  @Test
  void onlySmallFlatObjectsOfShortPacketsAreSourced() {
    String[] plain = {
        "{ \"a\" : { \"b\" : 1 } }",
        "{ \"a\" : [ 1 ] }",
        "{ \"a\" : 1 , \"a\" : 2 }",
        "{ " + fields(SourcedObject.MAX_FIELDS + 1) + " }",
        "{ \"a\" : \"" + "x".repeat(SourcedObject.MAX_SOURCE) + "\" }"};
    for (String text : plain) {
      JsonNode object = JsonTree.read(text, 0);
      assertThat(object).as(text).isNotInstanceOf(SourcedObject.class);
      assertThat(written(object)).as(text).doesNotStartWith("{ ");
    }
    String most = "{ " + fields(SourcedObject.MAX_FIELDS) + " }";
    assertThat(written(JsonTree.read(most, 0))).isEqualTo(most);
    // the inner object of a nested one is flat: it is sourced
    assertThat(written(JsonTree.read("{ \"a\" : { \"b\" : 1 } }", 0)))
        .isEqualTo("{\"a\":{ \"b\" : 1 }}");
  }

  private static String fields(int n) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < n; k++) {
      sb.append(k == 0 ? "" : " , ").append("\"f").append(k).append("\" : ").append(k);
    }
    return sb.toString();
  }

  private static String written(JsonNode node) {
    StringBuilder out = new StringBuilder();
    JsonText.append(out, node);
    return out.toString();
  }
}
