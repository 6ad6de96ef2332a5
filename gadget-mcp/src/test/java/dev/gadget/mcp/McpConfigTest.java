package dev.gadget.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A project's .mcp.json: read as written, or refused with the file and the server named. */
class McpConfigTest {
  @TempDir Path project;

  private List<McpServerConfig> read(String json) throws Exception {
    Path file = project.resolve(McpConfig.FILE_NAME);
    Files.writeString(file, json);
    return McpConfig.read(file);
  }

  @Test
  void readsStdioAndHttpServersInTheirOrder() throws Exception {
    List<McpServerConfig> servers = read("{\"mcpServers\": {"
        + "\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-filesystem\", \".\"],"
        + "        \"env\": {\"TOKEN\": \"s3cret\"}, \"cwd\": \"tools\"},"
        + "\"remote\": {\"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\","
        + "        \"headers\": {\"Authorization\": \"Bearer s3cret\"}}}}");

    assertThat(servers).extracting(McpServerConfig::name).containsExactly("fs", "remote");
    McpServerConfig fs = servers.get(0);
    assertThat(fs.command()).containsExactly("npx", "-y", "server-filesystem", ".");
    assertThat(fs.env()).isEqualTo(Map.of("TOKEN", "s3cret"));
    assertThat(fs.workingDir()).isEqualTo(project.toAbsolutePath().resolve("tools"));
    McpServerConfig remote = servers.get(1);
    assertThat(remote.url()).isEqualTo(URI.create("https://mcp.example.com/mcp"));
    assertThat(remote.headers()).containsEntry("Authorization", "Bearer s3cret");
    assertThat(servers.toString()).contains("TOKEN", "Authorization").doesNotContain("s3cret");
  }

  @Test
  void aStdioServerRunsInTheFilesDirectoryByDefault() throws Exception {
    List<McpServerConfig> servers = read("{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}");
    assertThat(servers.get(0).workingDir()).isEqualTo(project.toAbsolutePath());
  }

  @Test
  void noFileOrNoServersMeansNone() throws Exception {
    assertThat(McpConfig.read(project.resolve(McpConfig.FILE_NAME))).isEmpty();
    assertThat(read("{}")).isEmpty();
  }

  @Test
  void mistakesAreRefusedWithTheFileAndTheServerNamed() {
    String file = project.resolve(McpConfig.FILE_NAME).toString();
    assertThatThrownBy(() -> read("{\"mcpServers\": {"))
        .isInstanceOf(McpException.class)
        .hasMessageStartingWith(file + " is not valid JSON (line 1, column ");
    assertThatThrownBy(() -> read("[]"))
        .hasMessage(file + " must hold a JSON object with \"mcpServers\"");
    assertThatThrownBy(() -> read("{\"mcpServers\": {\"a\": {}}}"))
        .hasMessage(file + ": the server \"a\": needs either \"command\" or \"url\"");
    assertThatThrownBy(() -> read("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"-y\"}}}"))
        .hasMessage(file + ": the server \"a\": \"args\" must be an array of strings");
    assertThatThrownBy(() -> read("{\"mcpServers\": {\"a\": {\"type\": \"sse\", \"url\": \"http://h/\"}}}"))
        .hasMessage(file + ": the server \"a\": \"type\" \"sse\" is not supported (use \"stdio\" "
            + "or \"http\"; the older SSE transport is not)");
    assertThatThrownBy(() -> read("{\"mcpServers\": {\"a\": {\"url\": \"ftp://h/\"}}}"))
        .hasMessage(file + ": the server \"a\": the MCP server \"a\" has a url that is not "
            + "http:// or https://: ftp://h/");
    assertThatThrownBy(() -> read("{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}"))
        .hasMessage(file + ": the server \"a b\": an MCP server's name must be 1 to 32 letters, "
            + "digits, '_' or '-': \"a b\"");
    assertThatThrownBy(() -> read("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"N\": 1}}}}"))
        .hasMessage(file + ": the server \"a\": \"env\" must be an object of strings: \"N\" is "
            + "not a string");
  }
}
