package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonTree} against Jackson's {@code readTree} (the codec's mapper): on every text it
 * reads, the same tree, field order included; on every text Jackson refuses, it answers null
 * (Jackson then words the error).
 */
class JsonTreeTest {
  private static final ObjectMapper JACKSON = SocketCodec.JSON;
  private static final String JSONISH = "{}[]\",:\\ \n\t-+.eE0123456789tfnulrsabu\u0001\u00e9";

  @Test
  void readsRandomTreesAsJacksonDoes() throws Exception {
    Random random = new Random(23);
    int read = 0;
    for (int n = 0; n < 3_000; n++) {
      JsonNode tree = RandomJson.node(random, 4);
      String text = n % 2 == 0 ? tree.toString()
          : JACKSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
      read += same(text) ? 1 : 0;
    }
    assertThat(read).as("texts read without Jackson").isGreaterThan(1_000);
  }

  @Test
  void neverAcceptsWhatJacksonRefusesInMutatedTexts() throws Exception {
    Random random = new Random(24);
    int refused = 0;
    for (int n = 0; n < 20_000; n++) {
      StringBuilder text = new StringBuilder(RandomJson.node(random, 3).toString());
      for (int k = random.nextInt(3) + 1; k > 0 && text.length() > 0; k--) {
        int at = random.nextInt(text.length());
        switch (random.nextInt(4)) {
          case 0 -> text.deleteCharAt(at);
          case 1 -> text.insert(at, JSONISH.charAt(random.nextInt(JSONISH.length())));
          case 2 -> text.setCharAt(at, JSONISH.charAt(random.nextInt(JSONISH.length())));
          default -> text.setLength(at);
        }
      }
      if (!refusedByJackson(text.toString())) {
        same(text.toString());
      } else {
        refused++;
        assertThat(JsonTree.read(text.toString(), 0)).as("%s", text).isNull();
      }
    }
    assertThat(refused).as("mutations Jackson refused").isGreaterThan(5_000);
  }

  @Test
  void agreesWithJacksonOnNumbersKeysEscapesAndDepth() throws Exception {
    String deep = "[".repeat(JsonTree.MAX_DEPTH + 1) + "]".repeat(JsonTree.MAX_DEPTH + 1);
    String[] texts = {"0", "-0", "7", "-2147483648", "2147483648", "-2147483649",
        "999999999999999999", "1000000000000000000", "-9223372036854775808", "01", "-", "1.",
        "1.5", "1e3", "2E-2", "[1,2,]", "{\"a\":1,}", "{\"a\":1,\"b\":2,\"a\":3}", "{\"a\" 1}",
        "\"\\u00e9\\uD83D\\uDE00\\uD800\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"\\x\"", "\"\\u12\"",
        "\"tab\there\"", " \r\n\t{ } \n", "truex", "nul", "[true,false,null]", "{} {}", "",
        "  ", "[\"a\"]x", "\u00a0[]", deep, deep.substring(1, deep.length() - 1), "{\"\":\"\"}",
        "[" + "1,".repeat(2_000) + "1]"};
    for (String text : texts) {
      if (refusedByJackson(text)) {
        assertThat(JsonTree.read(text, 0)).as("%s", text).isNull();
      } else {
        same(text);
      }
    }
    assertThat(JsonTree.read(deep, 0)).as("deeper than the bound: Jackson reads it").isNull();
    assertThat(JsonTree.read("{\"a\":1,\"b\":2,\"a\":3}", 0)).hasToString("{\"a\":3,\"b\":2}");
    assertThat(JsonTree.read("42[\"x\",5]", 2)).hasToString("[\"x\",5]");
  }

  @Test
  void anEventsNameIsTheStringReadBeforeAndOnlyTheFirstStringOfAnArrayIsLookedUp() {
    String first = JsonTree.read("[\"response\",{\"seq\":1}]", 0).get(0).textValue();
    JsonNode again = JsonTree.read("[ \"response\" , \"response\" ]", 0);
    assertThat(again.get(0).textValue()).isEqualTo("response").isSameAs(first);
    assertThat(again.get(1).textValue()).isEqualTo("response").isNotSameAs(first);
  }

  @Test
  void theCodecReportsMalformedJsonInItsOwnWords() {
    assertThatThrownBy(() -> SocketCodec.parseJson("42[\"x\",tru]", 2))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("malformed JSON in packet at column 6 (9 chars)");
  }

  /** Whether JsonTree read {@code text} as Jackson does (false: it left it to Jackson). */
  private static boolean same(String text) throws JsonProcessingException {
    JsonNode expected = JACKSON.readTree(text);
    JsonNode actual = JsonTree.read(text, 0);
    if (actual == null) {
      return false;
    }
    assertThat(actual).as("%s", text).isEqualTo(expected);
    assertThat(actual.toString()).as("%s", text).isEqualTo(expected.toString());
    // written again (objects as they were read, see SourcedObject): the same tree
    StringBuilder written = new StringBuilder();
    JsonText.append(written, actual);
    assertThat(JACKSON.readTree(written.toString())).as("%s written again", text)
        .isEqualTo(expected);
    return true;
  }

  private static boolean refusedByJackson(String text) {
    try {
      JsonNode node = JACKSON.readTree(text);
      return node == null || node.isMissingNode();
    } catch (JsonProcessingException e) {
      return true;
    }
  }
}
