package dev.gadget.core.model;

import java.util.Objects;

/**
 * Which provider and model produced a turn.
 *
 * @param providerId the user's provider's id, or {@code "default"} for the server's own
 * @param providerName its display name when the turn ran
 * @param modelId the model
 */
public record TurnModel(String providerId, String providerName, String modelId) {
  /** The id that names the server operator's default provider. */
  public static final String DEFAULT_PROVIDER = "default";

  public TurnModel {
    Objects.requireNonNull(providerId, "providerId");
    Objects.requireNonNull(modelId, "modelId");
    providerName = providerName == null ? providerId : providerName;
  }
}
