package dev.gadget.core.agent.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PorterStemmerTest {
  /** Word, stem: the examples of Porter's 1980 paper, step by step. */
  private static final String[][] PAPER = {
    {"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"},
    {"cats", "cat"}, {"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"},
    {"bled", "bled"}, {"motoring", "motor"}, {"sing", "sing"}, {"conflated", "conflat"},
    {"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"},
    {"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
    {"filing", "file"}, {"happy", "happi"}, {"sky", "sky"}, {"relational", "relat"},
    {"conditional", "condit"}, {"rational", "ration"}, {"valenci", "valenc"},
    {"hesitanci", "hesit"}, {"digitizer", "digit"}, {"conformabli", "conform"},
    {"radicalli", "radic"}, {"differentli", "differ"}, {"vileli", "vile"},
    {"analogousli", "analog"}, {"vietnamization", "vietnam"}, {"predication", "predic"},
    {"operator", "oper"}, {"feudalism", "feudal"}, {"decisiveness", "decis"},
    {"hopefulness", "hope"}, {"callousness", "callous"}, {"formaliti", "formal"},
    {"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"}, {"triplicate", "triplic"},
    {"formative", "form"}, {"formalize", "formal"}, {"electriciti", "electr"},
    {"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"}, {"revival", "reviv"},
    {"allowance", "allow"}, {"inference", "infer"}, {"airliner", "airlin"},
    {"gyroscopic", "gyroscop"}, {"adjustable", "adjust"}, {"defensible", "defens"},
    {"irritant", "irrit"}, {"replacement", "replac"}, {"adjustment", "adjust"},
    {"dependent", "depend"}, {"adoption", "adopt"}, {"homologou", "homolog"},
    {"communism", "commun"}, {"activate", "activ"}, {"angulariti", "angular"},
    {"homologous", "homolog"}, {"effective", "effect"}, {"bowdlerize", "bowdler"},
    {"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"}, {"controll", "control"},
    {"roll", "roll"}, {"generalization", "gener"}, {"oscillators", "oscil"},
  };

  @Test
  void stemsThePapersExamplesAsThePaperDoes() {
    for (String[] p : PAPER) {
      assertThat(PorterStemmer.stem(p[0])).as(p[0]).isEqualTo(p[1]);
    }
  }

  @Test
  void conflatesTheFormsOfAToolsWords() {
    for (String w : new String[] {"connect", "connected", "connecting", "connection",
        "connections"}) {
      assertThat(PorterStemmer.stem(w)).as(w).isEqualTo("connect");
    }
    assertThat(PorterStemmer.stem("reviewers")).isEqualTo(PorterStemmer.stem("review"));
    assertThat(PorterStemmer.stem("screenshots")).isEqualTo("screenshot");
  }

  @Test
  void leavesShortWordsNumbersAndOtherScriptsAlone() {
    assertThat(PorterStemmer.stem("is")).isEqualTo("is");
    assertThat(PorterStemmer.stem("s3")).isEqualTo("s3");
    assertThat(PorterStemmer.stem("v1beta1")).isEqualTo("v1beta1");
    assertThat(PorterStemmer.stem("größen")).isEqualTo("größen");
    assertThat(PorterStemmer.stem("")).isEmpty();
  }
}
