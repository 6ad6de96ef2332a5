/**
 * Gadget core: the domain model, stream chunks and block aggregation, the agent loop, and the
 * SPIs (ChatStore, LlmClient, Transport, Cluster) that adapters implement. Internal packages are not
 * exported.
 */
module dev.gadget.core {
  requires transitive com.fasterxml.jackson.databind;
  requires transitive org.slf4j;
  // transitive: OllamaClient.Builder and OpenAiClient.Builder accept a java.net.http.HttpClient
  requires transitive java.net.http;

  exports dev.gadget.core;
  exports dev.gadget.core.model;
  exports dev.gadget.core.stream;
  exports dev.gadget.core.spi;
  exports dev.gadget.core.cluster;
  exports dev.gadget.core.store;
  exports dev.gadget.core.llm;
  exports dev.gadget.core.agent;
  exports dev.gadget.core.agent.tools;
  exports dev.gadget.core.agent.tools.annotations;
  exports dev.gadget.core.agent.catalog;
  exports dev.gadget.core.agent.skills;
  exports dev.gadget.core.agent.synth;
  // dev.gadget.core.llm.internal (parsers, HTTP plumbing) is deliberately not exported
  exports dev.gadget.core.transport;
  exports dev.gadget.core.protocol;
  exports dev.gadget.core.server;
  exports dev.gadget.core.drone;
  exports dev.gadget.core.transport.internal to dev.gadget.transport.ws;

  opens dev.gadget.core.model to com.fasterxml.jackson.databind;
  opens dev.gadget.core.stream to com.fasterxml.jackson.databind;
  opens dev.gadget.core.protocol to com.fasterxml.jackson.databind;
  opens dev.gadget.core.drone to com.fasterxml.jackson.databind;
  // the journaled store's records (not exported)
  opens dev.gadget.core.store.internal to com.fasterxml.jackson.databind;
}
