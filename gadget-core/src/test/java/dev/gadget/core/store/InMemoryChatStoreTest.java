package dev.gadget.core.store;

import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ChatStoreContract;

class InMemoryChatStoreTest extends ChatStoreContract {
  @Override
  protected ChatStore newStore() {
    return new InMemoryChatStore();
  }
}
