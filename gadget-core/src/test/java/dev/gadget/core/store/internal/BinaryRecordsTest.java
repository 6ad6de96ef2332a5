package dev.gadget.core.store.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Sampling;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A chat session's binary record: its createTools kept, and an older record still read. */
class BinaryRecordsTest {
  private final ChatSession session = new ChatSession("s1", "u1", "p1", "Chat", "ws-1",
      Instant.ofEpochSecond(1_700_000_000, 123), "prov", "model", new Sampling(0.2, null, 40),
      "commands", "always");

  private static byte[] written(ChatSession s) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      BinaryRecords.write(out, s);
    }
    return bytes.toByteArray();
  }

  @Test
  void aSessionReadsBackWithEachCreateToolsSetting() throws IOException {
    for (Boolean createTools : new Boolean[] {null, true, false}) {
      ChatSession s = session.withCreateTools(createTools);
      ByteBuffer in = ByteBuffer.wrap(written(s));
      assertThat(BinaryRecords.readSession(in, true)).isEqualTo(s);
      assertThat(in.hasRemaining()).isFalse();
    }
  }

  @Test
  void aRecordOfAnIndexBeforeVersionThreeHasNoCreateToolsAndReadsAsTheDronesSetting()
      throws IOException {
    byte[] now = written(session.withCreateTools(false));
    byte[] before = Arrays.copyOf(now, now.length - 1); // version 2 wrote no createTools byte
    ByteBuffer in = ByteBuffer.wrap(before);
    assertThat(BinaryRecords.readSession(in, false)).isEqualTo(session);
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void aCreateToolsByteOutOfRangeIsRefusedInWords() throws IOException {
    byte[] bytes = written(session);
    bytes[bytes.length - 1] = 7;
    assertThatThrownBy(() -> BinaryRecords.readSession(ByteBuffer.wrap(bytes), true))
        .isInstanceOf(IOException.class).hasMessageContaining("createTools is 7");
  }
}
