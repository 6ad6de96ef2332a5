package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** search_tools' answers, and reading them back as the server does. */
class ToolSearchTest {
  private static final ToolMatch ISSUE = new ToolMatch("github__create_issue",
      "Create a new issue in a GitHub repository", 7.5, 0.87);
  private static final ToolMatch MR = new ToolMatch("gitlab__create_merge_request",
      "Create a new merge request (in a GitLab project)", 3.1, 0.21);

  @Test
  void aFoundSearchListsItsToolsAndReadsBack() {
    String answer = ToolSearch.answer("open an issue", List.of(ISSUE, MR),
        Arrays.asList(null, "already loaded"), 304, 0.3);
    assertThat(answer).isEqualTo("Loaded 2 tools for \"open an issue\"; call them by name with "
        + "the arguments their definitions ask for:\n"
        + "- github__create_issue (similarity 0.87): Create a new issue in a GitHub repository\n"
        + "- gitlab__create_merge_request (similarity 0.21): Create a new merge request (in a "
        + "GitLab project) [already loaded]");
    ToolSearch.Result read = ToolSearch.read(answer);
    assertThat(read.outcome()).isEqualTo(ToolSearch.Outcome.FOUND);
    assertThat(read.matches()).extracting(ToolMatch::name, ToolMatch::similarity)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("github__create_issue", 0.87),
            org.assertj.core.groups.Tuple.tuple("gitlab__create_merge_request", 0.21));
    assertThat(read.matches().get(0).summary())
        .isEqualTo("Create a new issue in a GitHub repository");
    assertThat(read.reason()).isEmpty();
  }

  @Test
  void aBestMatchUnderTheThresholdIsAMismatchWithItsReason() {
    String answer = ToolSearch.answer("merge (quickly) the thing", List.of(MR),
        Arrays.asList((String) null), 304, 0.3);
    assertThat(answer).startsWith("No tool is a close match for \"merge (quickly) the thing\" "
        + "(the best covers 21% of its words, under 30%); the closest are loaded anyway");
    ToolSearch.Result read = ToolSearch.read(answer);
    assertThat(read.outcome()).isEqualTo(ToolSearch.Outcome.MISMATCH);
    assertThat(read.reason()).isEqualTo("the best covers 21% of its words, under 30%");
    assertThat(read.matches()).extracting(ToolMatch::name)
        .containsExactly("gitlab__create_merge_request");
  }

  @Test
  void nothingFoundSaysWhatToTryAndOtherTextIsNotASearch() {
    String answer = ToolSearch.answer("zebra", List.of(), List.of(), 304, 0.3);
    assertThat(answer).startsWith("No tool matches \"zebra\": none of the 304 tools");
    assertThat(ToolSearch.read(answer).outcome()).isEqualTo(ToolSearch.Outcome.NONE);
    assertThat(ToolSearch.read(answer).matches()).isEmpty();
    assertThat(ToolSearch.read("Error: search_tools needs a \"query\"")).isNull();
    assertThat(ToolSearch.read(null)).isNull();
  }
}
