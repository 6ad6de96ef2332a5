/**
 * A Gadget {@code ChatStore} on MongoDB through the official sync driver: see
 * {@link dev.gadget.store.mongo.MongoChatStore}. Only the API package is exported; the document
 * codecs, schema and error mapping stay internal.
 */
@SuppressWarnings("requires-transitive-automatic")
module dev.gadget.store.mongo {
  requires transitive dev.gadget.core;
  // The builder takes a MongoClient and MongoClientSettings.Builder: driver types in our API.
  requires transitive org.mongodb.driver.sync.client;
  requires transitive org.mongodb.driver.core;
  requires org.mongodb.bson;
  requires org.slf4j;

  exports dev.gadget.store.mongo;
}
