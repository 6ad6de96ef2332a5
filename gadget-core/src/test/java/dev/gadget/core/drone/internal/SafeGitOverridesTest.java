package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What the drone's git is told to use instead of a program the repository's own config names:
 * the user's or the system's setting where there is one, else git's default or nothing.
 */
class SafeGitOverridesTest {
  @Test
  void overridesComeFromTheUsersConfigOrAreNeutral() {
    String listing = String.join("\0",
        "system", "credential.helper\nsys-helper",
        "global", "core.sshcommand\nssh -i ~/.ssh/work",
        "global", "credential.helper\nstore",
        "local", "credential.helper\n!evil",
        "local", "core.sshcommand\nevil",
        "local", "filter.lfs.process\nevil",
        "local", "remote.origin.uploadpack\nevil",
        "local", "pager.log\nevil",
        "local", "gpg.ssh.program\nevil",
        "local", "diff.pdf.textconv\nevil",
        "local", "user.name\nAda",
        "");
    assertThat(SafeGit.overrides(listing)).containsExactly(
        "credential.helper=", "credential.helper=sys-helper", "credential.helper=store",
        "core.sshcommand=ssh -i ~/.ssh/work",
        "filter.lfs.process=", "filter.lfs.required=false",
        "pager.log=false",
        "gpg.ssh.program=ssh-keygen",
        "diff.pdf.textconv=cat");
  }

  @Test
  void settingsFromOutsideTheRepositoryAreLeftAlone() {
    String listing = String.join("\0",
        "global", "filter.lfs.clean\ngit-lfs clean -- %f",
        "global", "credential.helper\nstore",
        "command", "core.sshcommand\nssh",
        "local", "core.repositoryformatversion\n0",
        "local", "commit.gpgsign",
        "");
    assertThat(SafeGit.overrides(listing)).isEmpty();
  }
}
