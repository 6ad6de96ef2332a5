/**
 * Gadget's agent loop as an Agent Client Protocol (ACP) agent: an editor starts it as a
 * subprocess and speaks JSON-RPC 2.0 to it over stdio ({@link dev.gadget.acp.AcpAgent}). The
 * protocol plumbing lives in an internal package that is not exported.
 */
module dev.gadget.acp {
  requires transitive dev.gadget.core;
  requires dev.gadget.mcp;
  requires org.slf4j;

  exports dev.gadget.acp;
}
