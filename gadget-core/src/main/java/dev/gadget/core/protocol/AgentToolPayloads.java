package dev.gadget.core.protocol;

import java.util.List;

/**
 * The payloads of a chat's skills and synthesized tools as a page sees and changes them
 * ({@code listAgentTools}, {@code changeAgentTool}; docs/PROTOCOL.md): page to server with the
 * chat, server to drone with the chat's project.
 */
public final class AgentToolPayloads {
  private AgentToolPayloads() {}

  /** {@code listAgentTools} from a page: the chat whose skills and tools are asked for. */
  public record ListAgentTools(@Rule(required = true, maxLength = Limits.ID) String sessionId) {}

  /**
   * {@code changeAgentTool} from a page.
   *
   * @param sessionId the chat
   * @param kind {@code tool} or {@code skill}
   * @param name the tool's or skill's name
   * @param action {@code promote} (a tool only: stable now) or {@code delete}
   */
  public record ChangeAgentTool(@Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(required = true, oneOf = {"tool", "skill"}) String kind,
      @Rule(required = true, maxLength = Limits.NAME) String name,
      @Rule(required = true, oneOf = {"promote", "delete"}) String action) {}

  /**
   * Server to drone: the same requests for the project {@code slug} of the drone's workspace
   * ({@code kind}, {@code name} and {@code action} absent for {@code listAgentTools}).
   */
  public record AgentToolsRequest(@Rule(required = true, slug = true) String slug,
      @Rule(oneOf = {"tool", "skill"}) String kind, @Rule(maxLength = Limits.NAME) String name,
      @Rule(oneOf = {"promote", "delete"}) String action) {}

  /**
   * A synthesized tool as a page lists it.
   *
   * @param name its name
   * @param description what it does
   * @param folder its folder: relative to the project for a project's, absolute for the user's
   * @param experimental whether it is still experimental
   * @param successfulTurns in how many turns this version ran successfully
   * @param threshold the turns it needs to be stable
   * @param scope {@code project} or {@code user} (the drone host user's own library; only a
   *     project's can be deleted from a page)
   */
  public record ToolView(String name, String description, String folder, boolean experimental,
      int successfulTurns, int threshold, String scope) {}

  /**
   * A skill as a page lists it.
   *
   * @param name its name
   * @param description what it does and when to use it
   * @param folder its folder: relative to the project for a project's, absolute for the user's
   * @param scope {@code project} or {@code user} (only a project's can be deleted from a page)
   */
  public record SkillView(String name, String description, String folder, String scope) {}

  /**
   * The drone's answer, passed on to the page without {@code ok}.
   *
   * @param ok whether it was done
   * @param error why not, for people
   * @param skills the skills after the request
   * @param tools the tools after the request
   */
  public record AgentToolsReply(boolean ok, String error, List<SkillView> skills,
      List<ToolView> tools) {
    /** A refusal. */
    public static AgentToolsReply failure(String error) {
      return new AgentToolsReply(false, error, null, null);
    }
  }
}
