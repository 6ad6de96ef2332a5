package dev.gadget.core.agent.skills;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link SkillFile}: SKILL.md front matter read from literal text. */
class SkillFileTest {
  @Test
  void aPlainSkillHasItsNameDescriptionAndBody() {
    SkillFile f = SkillFile.parse("---\nname: pdf-tools\ndescription: Fill PDF forms. Use for "
        + "PDFs.\nlicense: Apache-2.0\nmetadata:\n  author: acme\n  version: \"1.0\"\n"
        + "allowed-tools: Bash(python3:*) Read\n---\n\n# PDF tools\n\nRun scripts/fill.py.\n",
        "pdf-tools");
    assertThat(f.usable()).isTrue();
    assertThat(f.problems()).isEmpty();
    assertThat(f.name()).isEqualTo("pdf-tools");
    assertThat(f.description()).isEqualTo("Fill PDF forms. Use for PDFs.");
    assertThat(f.body()).isEqualTo("# PDF tools\n\nRun scripts/fill.py.");
  }

  @Test
  void quotedFoldedAndLiteralValuesAndWindowsLineEnds() {
    assertThat(SkillFile.parse("---\r\nname: \"a-b\"\r\ndescription: 'it''s: quoted' # no\r\n"
        + "---\r\nbody", "a-b").description()).isEqualTo("it's: quoted");
    SkillFile folded = SkillFile.parse("---\nname: a\ndescription: >\n  one\n  two\n---\n", "a");
    assertThat(folded.description()).isEqualTo("one two");
    assertThat(folded.body()).isEmpty();
    assertThat(SkillFile.parse("---\nname: a\ndescription: |\n  one\n  two\n---\nx", "a")
        .description()).isEqualTo("one\ntwo");
    assertThat(SkillFile.parse("---\nname: a\ndescription: plain # comment\n  goes on\n---",
        "a").description()).isEqualTo("plain");
    assertThat(SkillFile.parse("\uFEFF---\nname: a\ndescription: \"say \\\"hi\\\"\"\n---\n", "a")
        .description()).isEqualTo("say \"hi\"");
  }

  @Test
  void whatCannotBeUsedSaysWhyInWords() {
    assertThat(SkillFile.parse("# Just markdown\n", "x").problems()).containsExactly(
        "it does not begin with a front matter block (a --- line, then name: and description: "
            + "lines, then a --- line)");
    assertThat(SkillFile.parse("---\nname: x\ndescription: y\n", "x").problems())
        .containsExactly("its front matter has no closing --- line");
    SkillFile noDescription = SkillFile.parse("---\nname: x\n---\nbody", "x");
    assertThat(noDescription.usable()).isFalse();
    assertThat(noDescription.problems()).containsExactly("its front matter has no description");
    assertThat(SkillFile.parse("---\ndescription: y\n---\n", "x").problems())
        .containsExactly("its front matter has no name");
    assertThat(SkillFile.parse("---\nname: x\ndescription y\n---\n", "x").problems())
        .containsExactly("its front matter is not valid YAML: line 2 is not \"key: value\": "
            + "\"description y\"");
    assertThat(SkillFile.parse("---\nname: x\nname: z\ndescription: y\n---\n", "x").problems())
        .containsExactly("its front matter is not valid YAML: \"name\" is given twice");
    assertThat(SkillFile.parse("---\nname: x\ndescription: \"open\n---\n", "x").problems())
        .containsExactly("its front matter is not valid YAML: the quoted value on line 2 is "
            + "not closed");
    assertThat(SkillFile.parse("---\n  name: x\n---\n", "x").usable()).isFalse();
  }

  @Test
  void aNameOffTheRulesOrAnOverlongDescriptionIsUsedAndReported() {
    SkillFile f = SkillFile.parse("---\nname: PDF--Tools\ndescription: " + "d".repeat(1100)
        + "\n---\n", "pdf-tools");
    assertThat(f.usable()).isTrue();
    assertThat(f.name()).isEqualTo("PDF--Tools");
    assertThat(f.description()).hasSize(SkillFile.MAX_DESCRIPTION);
    assertThat(f.problems()).containsExactly(
        "its name \"PDF--Tools\" is not 1 to 64 lowercase letters, digits and single hyphens "
            + "(used as it is)",
        "its name \"PDF--Tools\" is not its folder's name \"pdf-tools\" (used as it is)",
        "its description has 1100 characters, over 1024 (cut there)");
  }
}
