package dev.gadget.core.drone;

import dev.gadget.core.agent.Tool;
import java.util.List;

/**
 * Tools a drone offers for one turn only, made for the project the turn runs in, such as the MCP
 * servers a project's own file names ({@link GadgetDrone.Builder#turnTools}). The drone closes
 * it when the turn ends, however it ends.
 */
public interface TurnTools extends AutoCloseable {
  /** The tools, offered after the drone's own; their names must differ from those. */
  List<Tool> tools();

  /** Ends what the tools hold (processes, connections). Must not throw. */
  @Override
  void close();
}
