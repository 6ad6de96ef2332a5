package dev.gadget.core.agent.tools.annotations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calling tools made by {@link MethodTools}: arguments bound to records, enums, lists and
 * optionals; every argument problem and every exception an error result in people's words.
 */
class MethodToolsCallTest {
  enum Unit { CELSIUS, @JsonProperty("fahrenheit") FAHRENHEIT }

  record Stop(String city, Optional<Integer> nights) {
    Stop {
      if (city.isBlank()) {
        throw new IllegalArgumentException("a stop needs a city");
      }
    }
  }

  record Trip(List<Stop> stops, Set<String> tags, @JsonProperty("start_at") Instant startAt) {}

  record Forecast(String city, int days, Unit unit, Optional<String> note) {}

  /** Records every call it gets, so that a test can see what was bound. */
  static class Travel {
    final List<Object> calls = new CopyOnWriteArrayList<>();

    @ToolMethod("The forecast")
    Forecast forecast(String city, Optional<Integer> days, Unit unit) {
      calls.add(List.of(city, days, unit));
      return new Forecast(city, days.orElse(3), unit, Optional.empty());
    }

    @ToolMethod("Plans a trip")
    String planTrip(Trip trip, @ToolParam(required = false) Double budget) {
      calls.add(trip);
      calls.add(String.valueOf(budget));
      return "planned " + trip.stops().size() + " stops";
    }

    @ToolMethod("Weights things")
    String weigh(Map<String, Double> weights, long[] ids, char grade, boolean strict) {
      calls.add(weights);
      calls.add(List.of(ids.length, grade, strict));
      return "ok";
    }

    @ToolMethod("Books a hotel")
    void book(String hotel) throws IOException {
      if (hotel.equals("full")) {
        throw new IOException("no room left at " + hotel);
      }
      if (hotel.equals("closed")) {
        throw new ToolException("that hotel is closed; pick another");
      }
      if (hotel.equals("bug")) {
        throw new IllegalStateException();
      }
      calls.add(hotel);
    }

    @ToolMethod("Waits")
    String waitForever() throws InterruptedException {
      throw new InterruptedException();
    }

    @ToolMethod("Writes a note in the project")
    ToolResult note(String text, ToolContext context) throws IOException {
      Files.writeString(context.resolve("note.txt"), text);
      return ToolResult.ok("wrote note.txt in " + context.projectDir().getFileName());
    }

    @ToolMethod("A very long answer")
    String chatter(int chars) {
      return "x".repeat(chars);
    }
  }

  @TempDir Path project;
  Travel travel;
  List<Tool> tools;
  ToolContext context;

  @BeforeEach
  void setUp() throws IOException {
    travel = new Travel();
    tools = MethodTools.from(travel);
    context = new RunToolContext(new ProjectPaths(project));
  }

  private ToolResult call(String tool, String arguments) throws Exception {
    JsonNode args = GadgetJson.mapper().readTree(arguments.replace('\'', '"'));
    return tools.stream().filter(t -> t.name().equals(tool)).findFirst().orElseThrow()
        .execute(args, context);
  }

  private String error(String tool, String arguments) throws Exception {
    ToolResult result = call(tool, arguments);
    assertThat(result.error()).as(result.output()).isTrue();
    return result.output();
  }

  @Test
  void scalarsEnumsAndOptionalsAreBoundAndTheResultIsJson() throws Exception {
    ToolResult result = call("forecast", "{'city':'Lyon','days':5,'unit':'fahrenheit'}");

    assertThat(result).isEqualTo(ToolResult.ok(
        "{\"city\":\"Lyon\",\"days\":5,\"unit\":\"fahrenheit\",\"note\":null}"));
    assertThat(travel.calls).containsExactly(List.of("Lyon", Optional.of(5), Unit.FAHRENHEIT));
  }

  @Test
  void anOptionalLeftOutOrNullIsEmpty() throws Exception {
    call("forecast", "{'city':'Lyon','unit':'CELSIUS'}");
    call("forecast", "{'city':'Lyon','days':null,'unit':'CELSIUS'}");

    assertThat(travel.calls).containsExactly(
        List.of("Lyon", Optional.empty(), Unit.CELSIUS),
        List.of("Lyon", Optional.empty(), Unit.CELSIUS));
  }

  @Test
  void whatModelsCommonlySendIsForgiven() throws Exception {
    // a number as a string, an enum in another case, a whole float for an integer
    call("forecast", "{'city':'Lyon','days':'4','unit':'Celsius'}");
    call("forecast", "{'city':'Lyon','days':2.0,'unit':'FAHRENHEIT'}");
    // a list sent as a JSON string, a boolean as a string, a number for a string-keyed map value
    call("plan_trip",
        "{'trip':'{\\'stops\\':[{\\'city\\':\\'Oslo\\'}],\\'tags\\':[],"
            + "\\'start_at\\':\\'2026-06-01T08:00:00Z\\'}'}");

    assertThat(travel.calls.get(0)).isEqualTo(List.of("Lyon", Optional.of(4), Unit.CELSIUS));
    assertThat(travel.calls.get(1)).isEqualTo(List.of("Lyon", Optional.of(2), Unit.FAHRENHEIT));
    assertThat(travel.calls.get(2)).isEqualTo(new Trip(List.of(new Stop("Oslo",
        Optional.empty())), Set.of(), Instant.parse("2026-06-01T08:00:00Z")));
    assertThat(travel.calls.get(3)).isEqualTo("null");
  }

  @Test
  void recordsListsSetsMapsArraysAndCharactersAreBound() throws Exception {
    ToolResult planned = call("plan_trip", "{'trip':{'stops':[{'city':'Oslo','nights':2},"
        + "{'city':'Bergen'}],'tags':['fjords','fjords','rain'],"
        + "'start_at':'2026-06-01T08:00:00Z'},'budget':1200.5}");
    ToolResult weighed = call("weigh",
        "{'weights':{'a':1,'b':'2.5'},'ids':[1,2,3],'grade':'A','strict':'true'}");

    assertThat(planned).isEqualTo(ToolResult.ok("planned 2 stops"));
    assertThat(travel.calls.get(0)).isEqualTo(new Trip(
        List.of(new Stop("Oslo", Optional.of(2)), new Stop("Bergen", Optional.empty())),
        Set.of("fjords", "rain"), Instant.parse("2026-06-01T08:00:00Z")));
    assertThat(travel.calls.get(1)).isEqualTo("1200.5");
    assertThat(weighed).isEqualTo(ToolResult.ok("ok"));
    assertThat(travel.calls.get(2)).isEqualTo(Map.of("a", 1.0, "b", 2.5));
    assertThat(travel.calls.get(3)).isEqualTo(List.of(3, 'A', true));
  }

  @Test
  void wrongTypesAreToldInTheModelsTermsAllAtOnce() throws Exception {
    assertThat(error("forecast", "{'city':['Lyon'],'days':'seven','unit':'kelvin'}"))
        .isEqualTo("argument \"city\" must be a string (got [\"Lyon\"]); "
            + "argument \"days\" must be an integer (got \"seven\"); "
            + "argument \"unit\" must be one of \"CELSIUS\", \"fahrenheit\" (got \"kelvin\")");
    assertThat(error("forecast", "{'city':'Lyon','days':2.5,'unit':'CELSIUS'}"))
        .isEqualTo("argument \"days\" must be an integer (got 2.5)");
    assertThat(error("forecast", "{'city':'Lyon','days':99999999999,'unit':'CELSIUS'}"))
        .isEqualTo("argument \"days\" must be an integer from -2147483648 to 2147483647 "
            + "(got 99999999999)");
    assertThat(error("weigh", "{'weights':[],'ids':[1,'x'],'grade':'AB','strict':'yes'}"))
        .isEqualTo("argument \"weights\" must be an object (got []); "
            + "argument \"ids[1]\" must be an integer (got \"x\"); "
            + "argument \"grade\" must be a single character (got \"AB\"); "
            + "argument \"strict\" must be true or false (got \"yes\")");
  }

  @Test
  void missingAndUnknownArgumentsAreNamed() throws Exception {
    assertThat(error("forecast", "{'citi':'Lyon'}"))
        .isEqualTo("unknown argument \"citi\"; the arguments are city, days, unit; "
            + "missing required argument \"city\" (a string); "
            + "missing required argument \"unit\" (one of \"CELSIUS\", \"fahrenheit\")");
    assertThat(error("wait_forever", "{'seconds':5}"))
        .isEqualTo("unknown argument \"seconds\"; the arguments are none");
  }

  @Test
  void problemsInsideRecordsAndListsNameTheirPath() throws Exception {
    assertThat(error("plan_trip", "{'trip':{'stops':[{'city':'Oslo'},{'nights':'two',"
        + "'town':'x'},null],'tags':'fjords','start_at':'tomorrow'}}"))
        .isEqualTo("unknown argument \"trip.stops[1].town\"; its fields are city, nights; "
            + "missing required argument \"trip.stops[1].city\" (a string); "
            + "argument \"trip.stops[1].nights\" must be an integer (got \"two\"); "
            + "argument \"trip.stops[2]\" must be an object with the fields city, nights, "
            + "not null; "
            + "argument \"trip.tags\" must be a list (a JSON array) (got \"fjords\"); "
            + "argument \"trip.start_at\" must be a date and time such as "
            + "2026-04-29T19:30:00Z (got \"tomorrow\")");
    assertThat(travel.calls).as("the method is not called").isEmpty();
  }

  @Test
  void aRecordThatRefusesItsValuesSaysWhyInItsOwnWords() throws Exception {
    assertThat(error("plan_trip", "{'trip':{'stops':[{'city':' '}],'tags':[],"
        + "'start_at':'2026-06-01T08:00:00Z'}}"))
        .isEqualTo("argument \"trip.stops[0]\" was refused: a stop needs a city");
  }

  /** Reads upper-case codes only, the way a custom Jackson deserializer refuses a value. */
  static final class UpperCase extends StdDeserializer<String> {
    UpperCase() {
      super(String.class);
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String text = p.getText();
      return text.equals(text.toUpperCase(Locale.ROOT)) ? text
          : (String) ctxt.handleWeirdStringValue(String.class, text, "not upper case");
    }
  }

  record Code(@JsonDeserialize(using = UpperCase.class) String value) {}

  @Test
  void whatJacksonItselfRefusesIsToldWithoutJacksonsWords() throws Exception {
    List<Tool> coded = MethodTools.from(new Object() {
      @ToolMethod("Takes a code")
      String take(List<Code> codes) {
        return codes.toString();
      }
    });

    ToolResult result = coded.get(0).execute(GadgetJson.mapper().readTree(
        "{\"codes\":[{\"value\":\"AB\"},{\"value\":\"cd\"}]}"), context);

    assertThat(result).isEqualTo(
        ToolResult.error("argument \"codes[1].value\" could not be read as a string"));
  }

  @Test
  void exceptionsBecomeErrorResultsWithTheirMessage() throws Exception {
    assertThat(error("book", "{'hotel':'full'}")).isEqualTo("book failed: no room left at full");
    assertThat(error("book", "{'hotel':'bug'}"))
        .isEqualTo("book failed: an unexpected IllegalStateException");
    assertThatThrownBy(() -> call("book", "{'hotel':'closed'}"))
        .as("a ToolException goes to the loop as it is, which reports its message")
        .isInstanceOf(ToolException.class).hasMessage("that hotel is closed; pick another");
    assertThatThrownBy(() -> call("wait_forever", "{}"))
        .as("the loop turns an interruption into a cancelled call")
        .isInstanceOf(InterruptedException.class);
    assertThat(call("book", "{'hotel':'Ritz'}")).isEqualTo(ToolResult.ok("done"));
    assertThat(travel.calls).containsExactly("Ritz");
  }

  @Test
  void theToolContextIsPassedAndAToolResultReturnedAsItIs() throws Exception {
    ToolResult result = call("note", "{'text':'remember'}");

    assertThat(result).isEqualTo(ToolResult.ok("wrote note.txt in " + project.getFileName()));
    assertThat(Files.readString(project.resolve("note.txt"))).isEqualTo("remember");
  }

  @Test
  void aResultTooLongForTheContextIsCutAndSaysSo() throws Exception {
    String output = call("chatter", "{'chars':150000}").output();

    assertThat(output).startsWith("x".repeat(MethodTool.MAX_RESULT_CHARS) + "\n[")
        .endsWith("\n[50000 more characters cut: the result was too long]");
    assertThat(call("chatter", "{'chars':100000}").output()).hasSize(100_000);
  }
}
