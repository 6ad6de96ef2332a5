package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends one request to a drone and completes with its answer's arguments: the drone's socket on
 * this node, or (in a cluster) mail to the node that holds it ({@link RemoteDrones#ask}).
 */
@FunctionalInterface
interface DroneCall {
  CompletableFuture<List<JsonNode>> ask(String event, List<JsonNode> args, Duration timeout);
}
