package dev.gadget.core.agent.tools.annotations;

import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.Deserializers;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.deser.std.ReferenceTypeDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import com.fasterxml.jackson.databind.module.SimpleSerializers;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.ReferenceType;
import com.fasterxml.jackson.databind.type.TypeBindings;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.databind.type.TypeModifier;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Jackson mapper that binds a tool's arguments and writes its results: Gadget's configuration
 * ({@link GadgetJson#newMapper()}) plus {@code Optional}, which jackson-databind alone does not
 * know (the jdk8 module would be a new dependency).
 */
final class BindingJson {
  static final ObjectMapper MAPPER = GadgetJson.newMapper().registerModule(new OptionalModule());

  private BindingJson() {}

  /** The constants of {@code enumType} as the mapper writes them (names, or {@code @JsonProperty}). */
  static List<String> enumValues(Class<?> enumType) {
    List<String> values = new ArrayList<>();
    for (Object constant : enumType.getEnumConstants()) {
      values.add(MAPPER.valueToTree(constant).asText());
    }
    return List.copyOf(values);
  }

  /** The Jackson type of a Java type. */
  static JavaType type(Type type) {
    return MAPPER.getTypeFactory().constructType(type);
  }

  /** Reads and writes {@code Optional<T>} as {@code T} or {@code null}. */
  private static final class OptionalModule extends Module {
    @Override
    public String getModuleName() {
      return "gadget-optional";
    }

    @Override
    public Version version() {
      return Version.unknownVersion();
    }

    @Override
    public void setupModule(SetupContext context) {
      context.addTypeModifier(new TypeModifier() {
        @Override
        public JavaType modifyType(JavaType type, Type jdkType, TypeBindings bindings,
            TypeFactory factory) {
          if (type.isReferenceType() || type.isContainerType()
              || type.getRawClass() != Optional.class) {
            return type;
          }
          return ReferenceType.upgradeFrom(type, type.containedTypeOrUnknown(0));
        }
      });
      context.addDeserializers(new Deserializers.Base() {
        @Override
        public JsonDeserializer<?> findReferenceDeserializer(ReferenceType refType,
            DeserializationConfig config, BeanDescription beanDesc,
            TypeDeserializer contentTypeDeserializer, JsonDeserializer<?> contentDeserializer) {
          return refType.hasRawClass(Optional.class)
              ? new OptionalDeserializer(refType, null, contentTypeDeserializer,
                  contentDeserializer)
              : null;
        }
      });
      SimpleSerializers serializers = new SimpleSerializers();
      serializers.addSerializer(new OptionalSerializer());
      context.addSerializers(serializers);
    }
  }

  private static final class OptionalDeserializer extends ReferenceTypeDeserializer<Optional<?>> {
    private static final long serialVersionUID = 1L;

    OptionalDeserializer(JavaType fullType, ValueInstantiator instantiator,
        TypeDeserializer typeDeserializer, JsonDeserializer<?> deserializer) {
      super(fullType, instantiator, typeDeserializer, deserializer);
    }

    @Override
    protected OptionalDeserializer withResolved(TypeDeserializer typeDeserializer,
        JsonDeserializer<?> valueDeserializer) {
      return new OptionalDeserializer(_fullType, _valueInstantiator, typeDeserializer,
          valueDeserializer);
    }

    @Override
    public Optional<?> getNullValue(DeserializationContext context) {
      return Optional.empty();
    }

    @Override
    public Object getAbsentValue(DeserializationContext context) {
      return Optional.empty();
    }

    @Override
    public Object getEmptyValue(DeserializationContext context) {
      return Optional.empty();
    }

    @Override
    public Optional<?> referenceValue(Object contents) {
      return Optional.ofNullable(contents);
    }

    @Override
    public Object getReferenced(Optional<?> reference) {
      return reference.orElse(null);
    }

    @Override
    public Optional<?> updateReference(Optional<?> reference, Object contents) {
      return Optional.ofNullable(contents);
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class OptionalSerializer extends StdSerializer<Optional> {
    private static final long serialVersionUID = 1L;

    OptionalSerializer() {
      super(Optional.class);
    }

    @Override
    public boolean isEmpty(SerializerProvider provider, Optional value) {
      return value == null || value.isEmpty();
    }

    @Override
    public void serialize(Optional value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      provider.defaultSerializeValue(value.orElse(null), gen);
    }
  }
}
