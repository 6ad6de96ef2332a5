package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProviderErrorTest {
  private static ProviderError parse(String body) {
    return ProviderError.fromBody(body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void openAiErrorWithStringCode() {
    ProviderError e = parse("{\"error\":{\"message\":\"maximum context length is 8192 tokens\","
        + "\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}");
    assertThat(e).isEqualTo(new ProviderError("maximum context length is 8192 tokens",
        "invalid_request_error", "context_length_exceeded"));
    assertThat(e.describe()).isEqualTo("maximum context length is 8192 tokens "
        + "(type invalid_request_error, code context_length_exceeded)");
  }

  @Test
  void openAiErrorWithNumberOrNullCode() {
    ProviderError number = parse("{\"error\":{\"message\":\"Rate limit exceeded\",\"code\":429,"
        + "\"metadata\":{\"x\":1}},\"user_id\":\"u\"}");
    assertThat(number).isEqualTo(new ProviderError("Rate limit exceeded", null, "429"));
    assertThat(number.codeAsStatus()).isEqualTo(429);
    ProviderError nul = parse("{\"error\":{\"message\":\"No access\",\"type\":\"invalid_request_error\","
        + "\"param\":null,\"code\":null}}");
    assertThat(nul).isEqualTo(new ProviderError("No access", "invalid_request_error", null));
    assertThat(nul.codeAsStatus()).isZero();
  }

  @Test
  void ollamaStringError() {
    assertThat(parse("{\"error\":\"model \\\"llama9\\\" not found, try pulling it first\"}"))
        .isEqualTo(new ProviderError("model \"llama9\" not found, try pulling it first", null, null));
  }

  @Test
  void flatErrorObjects() {
    assertThat(parse("{\"object\":\"error\",\"message\":\"The model `gpt-9` does not exist.\","
        + "\"type\":\"NotFoundError\",\"param\":null,\"code\":404}"))
        .isEqualTo(new ProviderError("The model `gpt-9` does not exist.", "NotFoundError", "404"));
    assertThat(parse("{\"detail\":\"Not authenticated\"}"))
        .isEqualTo(new ProviderError("Not authenticated", null, null));
    assertThat(parse("{\"detail\":[{\"msg\":\"field required\"}]}").message())
        .isEqualTo("[{\"msg\":\"field required\"}]");
  }

  @Test
  void textAndEmptyAndUnrecognisedBodies() {
    assertThat(parse("<html><body>502 Bad Gateway</body></html>\n").message())
        .isEqualTo("<html><body>502 Bad Gateway</body></html>");
    assertThat(parse("  ")).isNull();
    assertThat(parse("{\"foo\":1}").message()).isEqualTo("{\"foo\":1}");
    assertThat(parse("{broken").message()).isEqualTo("{broken");
    assertThat(parse("x".repeat(5000)).message()).hasSize(2003);
  }
}
