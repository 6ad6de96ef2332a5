package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonTextTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  @Test
  void writesWhatJacksonWritesForEveryKindOfNode() {
    ObjectNode node = F.objectNode();
    node.put("text", "plain").put("int", -3).put("long", Long.MIN_VALUE).put("yes", true)
        .put("no", false).putNull("none").put("double", 0.1).put("float", 1.5f)
        .put("decimal", new BigDecimal("1E+3")).put("big", new BigInteger("123456789012345678901"))
        .put("short", (short) 5).put("nan", Double.NaN).put("bytes", new byte[] {1, 2, 3});
    node.putObject("empty");
    node.putArray("list").add(1).add("two").addNull().addArray();
    node.putPOJO("pojo", java.util.List.of("a"));
    assertThat(text(node)).isEqualTo(node.toString());
  }

  @Test
  void escapesStringsAsJacksonDoes() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    all.append("é ✓ \uD83D\uDE00 \u2028 \uD800 /");
    ObjectNode node = F.objectNode().put(all.toString(), all.toString());
    assertThat(text(node)).isEqualTo(node.toString());
  }

  @Test
  void randomTreesComeOutAsJacksonWritesThem() {
    Random random = new Random(22);
    for (int i = 0; i < 2_000; i++) {
      JsonNode tree = RandomJson.node(random, 4);
      assertThat(text(tree)).as("tree %d", i).isEqualTo(tree.toString());
    }
  }

  @Test
  void rawJsonTextIsWrittenAsItIsInsideATree() {
    String relayed = "{\"turnId\":\"t\",\"seq\":7,\"data\":\"h\\u00e9\"}";
    JsonNode args = F.arrayNode().add("response").add(GadgetJson.raw(relayed));
    assertThat(text(args)).isEqualTo("[\"response\"," + relayed + "]");
  }

  private static String text(JsonNode node) {
    StringBuilder out = new StringBuilder("x");
    JsonText.append(out, node);
    return out.substring(1);
  }
}
