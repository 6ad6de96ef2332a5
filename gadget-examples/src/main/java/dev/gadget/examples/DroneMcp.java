package dev.gadget.examples;

import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.drone.TurnTools;
import dev.gadget.mcp.McpConfig;
import dev.gadget.mcp.McpException;
import dev.gadget.mcp.McpServerConfig;
import dev.gadget.mcp.McpToolset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code gadget drone --mcp FILE}: the MCP servers whose tools the drone's agent gets. */
final class DroneMcp {
  private DroneMcp() {}

  /**
   * Starts the servers {@code file} describes, or returns {@code null} without a file.
   *
   * @throws CommandException when the file is missing or wrong, or a server does not start
   */
  static McpToolset start(Path file, Console console) {
    if (file == null) {
      return null;
    }
    if (!Files.isRegularFile(file)) {
      throw new CommandException("--mcp " + file + ": there is no such file");
    }
    try {
      List<McpServerConfig> servers = McpConfig.read(file);
      McpToolset mcp = McpToolset.builder().servers(servers).start();
      console.out().println("MCP: " + mcp.tools().size() + " tools from "
          + servers.stream().map(McpServerConfig::name).toList());
      return mcp;
    } catch (McpException e) {
      throw new CommandException(e.getMessage(), e);
    }
  }

  /**
   * The servers of {@code projectDir}'s own {@code .mcp.json} for one turn (none without the
   * file), as {@code gadget drone --project-mcp} starts them; the drone closes them with the turn.
   *
   * @throws McpException when the file is wrong or a server does not start: the turn ends with it
   */
  static TurnTools forProject(Path projectDir) {
    List<McpServerConfig> servers = McpConfig.read(projectDir.resolve(McpConfig.FILE_NAME));
    McpToolset mcp = servers.isEmpty() ? null : McpToolset.builder().servers(servers).start();
    return new TurnTools() {
      @Override
      public List<Tool> tools() {
        return mcp == null ? List.of() : mcp.tools();
      }

      @Override
      public void close() {
        if (mcp != null) {
          mcp.close();
        }
      }
    };
  }

  /** The coding tools, then the servers' tools. */
  static List<Tool> tools(McpToolset mcp) {
    List<Tool> tools = new ArrayList<>(CodingTools.all());
    if (mcp != null) {
      tools.addAll(mcp.tools());
    }
    return tools;
  }

  /** {@code drone}, closing the servers after it. */
  static Running closingWith(Running drone, McpToolset mcp) {
    if (mcp == null) {
      return drone;
    }
    return new Running() {
      @Override
      public CompletableFuture<Integer> exitCode() {
        return drone.exitCode();
      }

      @Override
      public void close() {
        try {
          drone.close();
        } finally {
          mcp.close();
        }
      }
    };
  }
}
