package dev.gadget.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a project's MCP servers from a JSON file in the common {@code .mcp.json} shape:
 *
 * <pre>{@code
 * {"mcpServers": {
 *   "fs":     {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
 *              "env": {"NODE_OPTIONS": "--max-old-space-size=256"}},
 *   "search": {"type": "http", "url": "https://mcp.example.com/mcp",
 *              "headers": {"Authorization": "Bearer ..."}}}}
 * }</pre>
 *
 * <p>A server with a {@code command} runs over stdio in {@code cwd} (relative to the file's
 * directory, which is also the default); one with a {@code url} is reached over streamable HTTP
 * ({@code type} may be {@code "stdio"}, {@code "http"} or {@code "streamable-http"}, or absent).
 * Anything else is refused with a message naming the file and the server.
 */
public final class McpConfig {
  /** The file a project keeps its MCP servers in, at its root. */
  public static final String FILE_NAME = ".mcp.json";
  /** The largest file read. */
  static final long MAX_BYTES = 1_000_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private McpConfig() {}

  /**
   * The servers {@code file} describes, in its order; none when it does not exist.
   *
   * @throws McpException when it cannot be read or is not a valid description, saying where
   */
  public static List<McpServerConfig> read(Path file) {
    JsonNode root;
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw new McpException(file + " is larger than " + MAX_BYTES + " bytes");
      }
      root = JSON.readTree(Files.readString(file));
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (JsonProcessingException e) {
      throw new McpException(file + " is not valid JSON (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    } catch (IOException e) {
      throw new McpException("could not read " + file + ": " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new McpException(file + " must hold a JSON object with \"mcpServers\"");
    }
    JsonNode servers = root.path("mcpServers");
    if (servers.isMissingNode()) {
      return List.of();
    }
    if (!servers.isObject()) {
      throw new McpException(file + ": \"mcpServers\" must be an object of servers by name");
    }
    List<McpServerConfig> configs = new ArrayList<>();
    Path dir = file.toAbsolutePath().getParent();
    for (Iterator<Map.Entry<String, JsonNode>> it = servers.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      try {
        configs.add(server(entry.getKey(), entry.getValue(), dir));
      } catch (IllegalArgumentException e) {
        throw new McpException(file + ": the server \"" + entry.getKey() + "\": "
            + e.getMessage());
      }
    }
    return configs;
  }

  private static McpServerConfig server(String name, JsonNode node, Path dir) {
    if (!node.isObject()) {
      throw new IllegalArgumentException("must be an object with a \"command\" or a \"url\"");
    }
    String type = text(node, "type");
    String command = text(node, "command");
    String url = text(node, "url");
    if (type != null && !List.of("stdio", "http", "streamable-http", "streamableHttp")
        .contains(type)) {
      throw new IllegalArgumentException("\"type\" \"" + type + "\" is not supported (use "
          + "\"stdio\" or \"http\"; the older SSE transport is not)");
    }
    if ((command == null) == (url == null)) {
      throw new IllegalArgumentException("needs either \"command\" or \"url\"");
    }
    if (command != null) {
      List<String> line = new ArrayList<>();
      line.add(command);
      line.addAll(strings(node, "args"));
      Path cwd = text(node, "cwd") == null ? dir : dir.resolve(text(node, "cwd")).normalize();
      return McpServerConfig.stdio(name, line).withEnv(map(node, "env")).withWorkingDir(cwd);
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("\"url\" is not a URL: " + url);
    }
    return McpServerConfig.http(name, uri).withHeaders(map(node, "headers"));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException("\"" + field + "\" must be a string");
    }
    return value.asText();
  }

  private static List<String> strings(JsonNode node, String field) {
    JsonNode value = node.get(field);
    List<String> out = new ArrayList<>();
    if (value == null || value.isNull()) {
      return out;
    }
    if (!value.isArray()) {
      throw new IllegalArgumentException("\"" + field + "\" must be an array of strings");
    }
    for (JsonNode item : value) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException("\"" + field + "\" must be an array of strings");
      }
      out.add(item.asText());
    }
    return out;
  }

  private static Map<String, String> map(JsonNode node, String field) {
    JsonNode value = node.get(field);
    Map<String, String> out = new LinkedHashMap<>();
    if (value == null || value.isNull()) {
      return out;
    }
    if (!value.isObject()) {
      throw new IllegalArgumentException("\"" + field + "\" must be an object of strings");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (!entry.getValue().isTextual()) {
        throw new IllegalArgumentException("\"" + field + "\" must be an object of strings: \""
            + entry.getKey() + "\" is not a string");
      }
      out.put(entry.getKey(), entry.getValue().asText());
    }
    return out;
  }
}
