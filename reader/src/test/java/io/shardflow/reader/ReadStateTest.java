package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The resume state's JSON is the Python reader's, byte for byte: states written by the Python
 * package ({@code python-read-states.jsonl}, made with {@code json.dumps(ReadState(...).to_json(),
 * separators=(",", ":"))}) parse, and write back unchanged.
 */
class ReadStateTest {

    private static final SourcePin CAMS = new SourcePin("cams", "v1", 4, null, true, 8192, 151);

    @Test
    void shouldReadStatesWrittenByThePythonPackageAndWriteThemBackByteForByte() throws IOException {
        List<String> lines = pythonStates();
        assertThat(lines).hasSize(2);

        ReadState one = ReadState.fromJson(lines.get(0));
        ReadState mix = ReadState.fromJson(lines.get(1));

        assertThat(one).isEqualTo(new ReadState(17, 3, false, 151, 48, List.of(CAMS)));
        assertThat(mix).isEqualTo(new ReadState(Long.MAX_VALUE, 12, true, 80, 30, List.of(
                new SourcePin("cams", "v1", 9, 7L, true, 16, 60), new SourcePin("cams", "v2", 2, null, false, 0, 20))));
        assertThat(one.toJson()).isEqualTo(lines.get(0));
        assertThat(mix.toJson()).isEqualTo(lines.get(1));
        assertThat(one.toJson().length()).as("a few hundred bytes").isLessThan(400);
    }

    @Test
    void shouldRefuseStatesOfOtherFormatsNamingWhatTheyAre() {
        assertThatThrownBy(() -> ReadState.fromJson("{\"epoch\":0,\"seed\":1,\"snapshotId\":3,\"samplesYielded\":5}"))
                .hasMessageContaining("not a shardflow resume state").hasMessageContaining("version 1");
        assertThatThrownBy(() -> ReadState.fromJson("{\"format\":\"shardflow.sample-stream/1\"}"))
                .hasMessageContaining("shardflow.read-state/2");
        String damaged = new ReadState(17, 3, false, 151, 48, List.of(CAMS)).toJson().replace("\"consumed\":48", "\"consumed\":152");
        assertThatThrownBy(() -> ReadState.fromJson(damaged)).hasMessageContaining("damaged").hasMessageContaining("152 consumed of 151");
        assertThatThrownBy(() -> ReadState.fromJson("{\"format\":\"shardflow.read-state/2\",\"seed\":1}"))
                .hasMessageContaining("sources");
    }

    @Test
    void shouldMergeRanksInLockstepAndRefuseOrRepeatUnevenOnes() {
        ReadState at48 = new ReadState(17, 3, false, 151, 48, List.of(CAMS));
        ReadState at60 = at48.withConsumed(60);

        assertThat(ReadState.merge(List.of(at48, at48, at48), false)).isEqualTo(at48);
        assertThatThrownBy(() -> ReadState.merge(List.of(at48, at60), false)).hasMessageContaining("not in lockstep")
                .hasMessageContaining("[48, 60]");
        assertThat(ReadState.merge(List.of(at60, at48), true)).as("the smallest: none lost").isEqualTo(at48);
        ReadState otherSnapshot = new ReadState(17, 3, false, 151, 48, List.of(CAMS.withSnapshot(5)));
        assertThatThrownBy(() -> ReadState.merge(List.of(at48, otherSnapshot), true)).hasMessageContaining("different reads");
    }

    @Test
    void shouldRefuseAStateForOtherDataOrSettings() {
        ReadState state = new ReadState(17, 3, false, 151, 48, List.of(CAMS));
        List<ReadSource> cams = List.of(ReadSource.latest("cams", "v1"));

        state.checkSettings(17, cams, true, 8192);
        assertThatThrownBy(() -> state.checkSettings(18, cams, true, 8192)).hasMessageContaining("seed=17");
        assertThatThrownBy(() -> state.checkSettings(17, cams, true, 16)).hasMessageContaining("shuffle_block=8192");
        assertThatThrownBy(() -> state.checkSettings(17, cams, false, 8192)).hasMessageContaining("shuffle_shards=true");
        assertThatThrownBy(() -> state.checkSettings(17, List.of(ReadSource.latest("cams", "v2")), true, 8192))
                .hasMessageContaining("[cams/v1], not [cams/v2]");
    }

    private static List<String> pythonStates() throws IOException {
        try (InputStream in = ReadStateTest.class.getResourceAsStream("python-read-states.jsonl")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
