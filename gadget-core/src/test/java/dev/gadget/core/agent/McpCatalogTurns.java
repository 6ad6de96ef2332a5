package dev.gadget.core.agent;

import dev.gadget.core.agent.catalog.McpCatalogFixture;
import dev.gadget.core.agent.tools.CodingTools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of turns over the coding tools and the 304 real MCP tool definitions share: a
 * project, the tools, and the calls the MCP tools received.
 */
abstract class McpCatalogTurns {
  static final List<String> CODING = CodingTools.all().stream().map(Tool::name).toList();

  @TempDir Path tmp;
  TestRepo repo;
  Queue<String> calls = McpCatalogFixture.calls();
  List<Tool> tools = new ArrayList<>(CodingTools.all());

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "README.md", "# Demo\n");
    tools.addAll(McpCatalogFixture.tools(calls));
  }

  /** The coding tools' names followed by {@code more}. */
  static List<String> codingAnd(String... more) {
    List<String> names = new ArrayList<>(CODING);
    names.addAll(List.of(more));
    return names;
  }
}
