package dev.gadget.core.agent;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** What the agent loop tests share: a real git repository with a greeting and a README. */
abstract class AgentLoopFixture {
  static final String GREETING =
      "class Greeting {\n  String text() {\n    return \"Hello\";\n  }\n}\n";

  @TempDir Path tmp;
  TestRepo repo;

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "src/Greeting.java", GREETING, "README.md", "# Demo\n");
  }

  AgentOutcome run(AgentLoop loop, AgentRequest request, AgentListener listener)
      throws Exception {
    return loop.start(request, listener).outcome().get(20, TimeUnit.SECONDS);
  }

  AgentRequest request(String prompt) {
    return AgentRequest.builder(repo.dir(), "test-model", prompt).projectName("Demo").build();
  }
}
