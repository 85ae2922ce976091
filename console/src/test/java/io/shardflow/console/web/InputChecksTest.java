package io.shardflow.console.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.console.data.Cursor;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** Escaping and URL checks on any input: what reaches a page is inert, what reaches a lookup is a valid name. */
class InputChecksTest {

    @Property(tries = 500)
    void shouldLeaveNoMarkupInEscapedText(@ForAll String anything) {
        String escaped = Html.text(anything);

        assertThat(escaped).doesNotContain("<", ">", "\"", "'");
        assertThat(escaped.replaceAll("&(amp|lt|gt|quot|#39);", "")).doesNotContain("&");
    }

    @Property(tries = 500)
    void shouldAcceptOnlyNamesThatStayInsideTheDatasetsPrefix(@ForAll String anything) {
        try {
            String name = Params.name(anything, "dataset name");
            assertThat(name).doesNotContain("/", "\\").doesNotStartWith(".").isNotEmpty();
        } catch (Params.BadRequest e) {
            assertThat(e.getMessage()).contains("dataset name");
        }
    }

    @Test
    void shouldRefuseTraversalAndMalformedCursorsAndTimes() {
        assertThatThrownBy(() -> Params.name("..", "dataset name")).isInstanceOf(Params.BadRequest.class);
        assertThatThrownBy(() -> Params.name("a/../b", "dataset name")).isInstanceOf(Params.BadRequest.class);
        assertThatThrownBy(() -> Params.tensor("../x")).isInstanceOf(Params.BadRequest.class);
        assertThatThrownBy(() -> Params.number("-1", "row", 0)).isInstanceOf(Params.BadRequest.class);
        assertThatThrownBy(() -> Params.time("yesterday", "from")).isInstanceOf(Params.BadRequest.class);
        assertThatThrownBy(() -> Cursor.parse("1.2.3")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Cursor.parse("12.340")).isEqualTo(new Cursor(12, 340));
        assertThat(Params.time("2026-03-01T12:00:00Z", "from")).isEqualTo(1_772_366_400_000L);
    }
}
