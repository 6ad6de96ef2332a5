package dev.gadget.acp.internal;

/**
 * A JSON-RPC error: its code and a message for people. Thrown by a method's handler to answer
 * with that error, and by {@link RpcConnection#call} when the client answered with one.
 */
public final class RpcException extends RuntimeException {
  /** The line is not JSON. */
  public static final int PARSE_ERROR = -32700;
  /** The message is not a JSON-RPC request, or is too long. */
  public static final int INVALID_REQUEST = -32600;
  /** No such method. */
  public static final int METHOD_NOT_FOUND = -32601;
  /** The method's parameters are wrong. */
  public static final int INVALID_PARAMS = -32602;
  /** The method failed. */
  public static final int INTERNAL_ERROR = -32603;
  /** ACP: the resource (a session) does not exist. */
  public static final int RESOURCE_NOT_FOUND = -32002;

  private final int code;

  /** An error with {@code code} and a message for people. */
  public RpcException(int code, String message) {
    super(message);
    this.code = code;
  }

  /** The JSON-RPC error code. */
  public int code() {
    return code;
  }

  /** Invalid params, with what is wrong. */
  public static RpcException invalidParams(String message) {
    return new RpcException(INVALID_PARAMS, message);
  }
}
