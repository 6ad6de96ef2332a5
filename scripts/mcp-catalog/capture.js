// Writes the tool lists of the MCP servers in package.json into gadget-core's tool-search
// benchmark catalog (gadget-core/src/test/resources/catalog/mcp-tools.json): each server is
// started over stdio with placeholder credentials (listing tools needs none), asked tools/list,
// and stopped. Run once after `npm ci` here: `node capture.js`.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const fs = require('fs');
const os = require('os');
const path = require('path');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-catalog-'));
const bin = (pkg, file) => path.join(__dirname, 'node_modules', pkg, file);
const env = {
  GITHUB_PERSONAL_ACCESS_TOKEN: 'placeholder', GITLAB_PERSONAL_ACCESS_TOKEN: 'placeholder',
  SLACK_BOT_TOKEN: 'placeholder', SLACK_TEAM_ID: 'T0', GOOGLE_MAPS_API_KEY: 'placeholder',
  BRAVE_API_KEY: 'placeholder', FIRECRAWL_API_KEY: 'fc-placeholder', MEMORY_FILE_PATH:
  path.join(tmp, 'memory.json'), NOTION_TOKEN: 'placeholder',
};
const servers = [
  ['github', bin('@modelcontextprotocol/server-github', 'dist/index.js')],
  ['gitlab', bin('@modelcontextprotocol/server-gitlab', 'dist/index.js')],
  ['slack', bin('@modelcontextprotocol/server-slack', 'dist/index.js')],
  ['google_maps', bin('@modelcontextprotocol/server-google-maps', 'dist/index.js')],
  ['brave_search', bin('@modelcontextprotocol/server-brave-search', 'dist/index.js')],
  ['memory', bin('@modelcontextprotocol/server-memory', 'dist/index.js')],
  ['filesystem', bin('@modelcontextprotocol/server-filesystem', 'dist/index.js'), tmp],
  ['everything', bin('@modelcontextprotocol/server-everything', 'dist/index.js'), 'stdio'],
  ['sequential_thinking', bin('@modelcontextprotocol/server-sequential-thinking', 'dist/index.js')],
  ['playwright', bin('@playwright/mcp', 'cli.js')],
  ['chrome_devtools', bin('chrome-devtools-mcp', 'build/src/bin/chrome-devtools-mcp.js')],
  ['notion', bin('@notionhq/notion-mcp-server', 'bin/cli.mjs')],
  ['desktop_commander', bin('@wonderwhy-er/desktop-commander', 'dist/index.js')],
  ['chart', bin('@antv/mcp-server-chart', 'build/index.js')],
  ['mongodb', bin('mongodb-mcp-server', 'dist/esm/index.js')],
  ['kubernetes', bin('mcp-server-kubernetes', 'dist/index.js')],
  ['firecrawl', bin('firecrawl-mcp', 'dist/index.js')],
  ['context7', bin('@upstash/context7-mcp', 'dist/index.js')],
];

async function list([name, script, ...args]) {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [script, ...args], cwd: tmp,
    env: { ...process.env, ...env, HOME: tmp }, stderr: 'ignore',
  });
  const client = new Client({ name: 'gadget-catalog-capture', version: '0.0.0' });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 60000));
  try {
    await Promise.race([client.connect(transport), timeout]);
    const tools = [];
    let cursor;
    do {
      const page = await Promise.race([client.listTools({ cursor }), timeout]);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools.map((t) => ({ server: name, name: t.name, description: t.description || t.title || '',
      inputSchema: t.inputSchema }));
  } finally {
    await client.close().catch(() => {});
  }
}

(async () => {
  const all = [];
  for (const s of servers) {
    try {
      const tools = await list(s);
      console.error(`${s[0]}: ${tools.length} tools`);
      all.push(...tools);
    } catch (e) {
      console.error(`${s[0]}: could not list its tools: ${e.message}`);
    }
  }
  const out = path.join(__dirname, '../../gadget-core/src/test/resources/catalog/mcp-tools.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(all, null, 1) + '\n');
  console.error(`${all.length} tools written to ${path.relative(process.cwd(), out)}`);
  process.exit(0);
})();
