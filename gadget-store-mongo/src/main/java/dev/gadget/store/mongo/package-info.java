/**
 * {@link dev.gadget.store.mongo.MongoChatStore}, a {@link dev.gadget.core.spi.ChatStore} on
 * MongoDB, and its builder.
 */
package dev.gadget.store.mongo;
