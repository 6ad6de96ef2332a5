package dev.gadget.core.agent.tools.annotations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.math.BigDecimal;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON schemas {@link MethodTools} generates, and the methods it refuses, with why. */
class MethodToolsSchemaTest {
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.PARAMETER, ElementType.TYPE_USE, ElementType.RECORD_COMPONENT})
  @interface Nullable {}

  enum Unit { CELSIUS, @JsonProperty("fahrenheit") FAHRENHEIT }

  record Stop(@ToolParam("The name of the city") String city,
              @ToolParam("Nights there") Optional<Integer> nights,
              @Nullable String note) {}

  record Trip(@ToolParam("Stops in order") List<Stop> stops, Set<String> tags,
              @JsonProperty("start_at") Instant startAt) {}

  static class Weather {
    @ToolMethod("The forecast for a city, day by day")
    String forecast(@ToolParam("The name of the city") String city,
                    @ToolParam("How many days, 1 to 7") Optional<Integer> days,
                    Unit unit) {
      return "";
    }

    @ToolMethod(name = "plan-trip", value = "Plans a trip")
    String planTrip(Trip trip, @ToolParam(value = "Budget in euros", required = false)
        BigDecimal budget, ToolContext context) {
      return "";
    }

    @ToolMethod("Every other kind of value")
    static String everything(boolean flag, long count, double ratio, char initial, int[] scores,
        Map<String, Double> weights, UUID id, JsonNode extra, @Nullable Integer limit,
        @ToolParam(name = "renamed") String original) {
      return "";
    }

    String notATool() {
      return "";
    }
  }

  private static JsonNode json(String text) throws Exception {
    return GadgetJson.mapper().readTree(text.replace('\'', '"'));
  }

  private static Tool tool(List<Tool> tools, String name) {
    return tools.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void eachAnnotatedMethodIsOneToolNamedInSnakeCaseSortedByName() {
    List<Tool> tools = MethodTools.from(new Weather());

    assertThat(tools).extracting(Tool::name).containsExactly("everything", "forecast", "plan-trip");
    assertThat(tool(tools, "forecast").description())
        .isEqualTo("The forecast for a city, day by day");
    assertThat(tool(tools, "forecast").definition().name()).isEqualTo("forecast");
    assertThat(MethodTools.snakeCase("findUsages")).isEqualTo("find_usages");
    assertThat(MethodTools.snakeCase("readURL")).isEqualTo("read_url");
    assertThat(MethodTools.snakeCase("parseHTMLPage2Now")).isEqualTo("parse_html_page2_now");
  }

  @Test
  void scalarsEnumsAndOptionalParametersWithDescriptions() throws Exception {
    assertThat(tool(MethodTools.from(new Weather()), "forecast").parameters()).isEqualTo(json(
        "{'type':'object','properties':{"
            + "'city':{'type':'string','description':'The name of the city'},"
            + "'days':{'type':'integer','description':'How many days, 1 to 7'},"
            + "'unit':{'type':'string','enum':['CELSIUS','fahrenheit']}},"
            + "'required':['city','unit'],'additionalProperties':false}"));
  }

  @Test
  void recordsAndListsNestWithTheirComponentsDescriptionsAndRequiredFields() throws Exception {
    JsonNode stop = json("{'type':'object','properties':{"
        + "'city':{'type':'string','description':'The name of the city'},"
        + "'nights':{'type':'integer','description':'Nights there'},"
        + "'note':{'type':'string'}},"
        + "'required':['city'],'additionalProperties':false}");
    JsonNode expected = json("{'type':'object','properties':{"
        + "'trip':{'type':'object','properties':{"
        + "  'stops':{'type':'array','items':" + stop + ",'description':'Stops in order'},"
        + "  'tags':{'type':'array','items':{'type':'string'},'uniqueItems':true},"
        + "  'start_at':{'type':'string','format':'date-time'}},"
        + "  'required':['stops','tags','start_at'],'additionalProperties':false},"
        + "'budget':{'type':'number','description':'Budget in euros'}},"
        + "'required':['trip'],'additionalProperties':false}");

    Tool plan = tool(MethodTools.from(new Weather()), "plan-trip");

    assertThat(plan.parameters()).as("the ToolContext parameter is not offered to the model")
        .isEqualTo(expected);
  }

  @Test
  void everyOtherSupportedType() throws Exception {
    assertThat(tool(MethodTools.from(new Weather()), "everything").parameters()).isEqualTo(json(
        "{'type':'object','properties':{"
            + "'flag':{'type':'boolean'},'count':{'type':'integer'},'ratio':{'type':'number'},"
            + "'initial':{'type':'string','minLength':1,'maxLength':1},"
            + "'scores':{'type':'array','items':{'type':'integer'}},"
            + "'weights':{'type':'object','additionalProperties':{'type':'number'}},"
            + "'id':{'type':'string','format':'uuid'},'extra':{},"
            + "'limit':{'type':'integer'},'renamed':{'type':'string'}},"
            + "'required':['flag','count','ratio','initial','scores','weights','id','extra',"
            + "'renamed'],'additionalProperties':false}"));
  }

  @Test
  void parametersReturnsACopyThatCallersCannotChange() {
    Tool forecast = tool(MethodTools.from(new Weather()), "forecast");
    ((com.fasterxml.jackson.databind.node.ObjectNode) forecast.parameters()).removeAll();
    assertThat(forecast.parameters().get("properties")).hasSize(3);
  }

  static class Plain {
    int x;
  }

  record Node(String name, List<Node> children) {}

  @Test
  void typesWithNoSchemaAreRefusedNamingTheParameterAndWhatWouldWork() {
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("takes a class")
      void take(Plain plain) {}
    })).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parameter plain of ")
        .hasMessageContaining("has the type " + Plain.class.getName())
        .hasMessageContaining("use a String, a number, a boolean, an enum, a record");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("takes a map")
      void take(Map<Integer, String> byId) {}
    })).hasMessageContaining("parameter byId").hasMessageContaining("a Map's keys must be Strings");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("takes a tree")
      void take(Node root) {}
    })).hasMessageContaining("record Node contains itself");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("takes a raw list")
      void take(@SuppressWarnings("rawtypes") List names) {}
    })).hasMessageContaining("give its element type, such as List<String>");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("takes optional elements")
      void take(List<Optional<String>> names) {}
    })).hasMessageContaining("a list or map cannot hold Optional values");
  }

  @Test
  void aPrimitiveCannotBeOptional() {
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("counts")
      void count(@ToolParam(required = false) int times) {}
    })).hasMessageContaining("parameter times of ")
        .hasMessageContaining("is the primitive int, which cannot be left out; use Integer or "
            + "Optional<Integer>");
  }

  @Test
  void namesDescriptionsAndDuplicatesAreChecked() {
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod(name = "no spaces", value = "x")
      void a() {}
    })).hasMessageContaining("\"no spaces\" cannot be a tool's name");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod(" ")
      void a() {}
    })).hasMessageContaining("@ToolMethod needs a description");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("one")
      void readFile() {}

      @ToolMethod(name = "read_file", value = "two")
      void read() {}
    })).hasMessageContaining("is already the tool read_file");
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("two names")
      void a(@ToolParam(name = "x") String first, String x) {}
    })).hasMessageContaining("has two parameters named x");
    assertThatThrownBy(() -> MethodTools.from(new Plain()))
        .hasMessage(Plain.class.getName() + " has no method annotated @ToolMethod");
  }

  record Renamed(@ToolParam(name = "other") String name) {}

  @Test
  void aRecordComponentIsRenamedWithJsonPropertyNotToolParam() {
    assertThatThrownBy(() -> MethodTools.from(new Object() {
      @ToolMethod("x")
      void a(Renamed r) {}
    })).hasMessageContaining("rename a record component with @JsonProperty");
  }

  static class Base {
    @ToolMethod("Says hello")
    String hello(String name) {
      return "hello " + name;
    }
  }

  static class Derived extends Base {
    @Override
    String hello(String name) {
      return "hi " + name;
    }
  }

  @Test
  void toolsOfSuperclassesCountAndOverridesAreCalled() throws Exception {
    List<Tool> tools = MethodTools.from(new Derived());
    assertThat(tools).extracting(Tool::name).containsExactly("hello");
    assertThat(tools.get(0).execute(json("{'name':'Ada'}"), null).output()).isEqualTo("hi Ada");
  }

  @Test
  void withoutCompiledParameterNamesTheErrorSaysHowToGetThem(@TempDir Path tmp) throws Exception {
    // Compiled here without -parameters, as many builds do.
    Path src = Files.writeString(tmp.resolve("Greeter.java"), "public class Greeter {\n"
        + "  @dev.gadget.core.agent.tools.annotations.ToolMethod(\"Greets\")\n"
        + "  public String greet(String name) { return \"hi \" + name; }\n}\n");
    String annotations = Path.of(ToolMethod.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac")
        .toString(), "-cp", annotations, "-d", tmp.toString(), src.toString())
        .redirectErrorStream(true).start();
    String output = new String(javac.getInputStream().readAllBytes());
    assertThat(javac.waitFor()).as(output).isZero();
    try (URLClassLoader loader = new URLClassLoader(new java.net.URL[] {tmp.toUri().toURL()},
        getClass().getClassLoader())) {
      Object greeter = loader.loadClass("Greeter").getConstructor().newInstance();

      assertThatThrownBy(() -> MethodTools.from(greeter))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Greeter.greet: the names of its parameters were not compiled in; compile "
              + "with javac -parameters, or name each parameter with @ToolParam(name = ...)");
    }
  }
}
