package io.shardflow.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The rules can fail: each one, evaluated on fixture classes that break it (test sources, so the
 * check over the production classes never sees them), reports the offending dependency.
 */
class DependencyRulesCatchViolationsTest {

    private final JavaClasses fixtures = new ClassFileImporter().importPackages("io.shardflow.sink.violation",
            "io.shardflow.dataset.violation", "io.shardflow.schemas.violation", "io.shardflow.console.violation",
            "io.shardflow.gateway.violation");

    @Test
    void shouldFailWhenAServiceImportsTheLocalStack() {
        EvaluationResult result = DependencyRules.SERVICES_STAY_SERVICES.evaluate(fixtures);

        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("SinkStartingALocalStack")
                && line.contains("io.shardflow.stack.LocalStack"));
    }

    @Test
    void shouldFailWhenAServiceImportsTheReader() {
        EvaluationResult result = DependencyRules.SERVICES_STAY_SERVICES.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("SinkReadingLikeATrainer")
                && line.contains("io.shardflow.reader.ReaderOptions"));
    }

    @Test
    void shouldFailWhenTheGatewayImportsTheCommands() {
        EvaluationResult result = DependencyRules.SERVICES_STAY_SERVICES.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("GatewayCallingTheCli")
                && line.contains("io.shardflow.cli.Shardflow"));
    }

    @Test
    void shouldFailWhenTheGatewayImportsAnotherService() {
        EvaluationResult result = DependencyRules.SERVICES_STAY_APART.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("GatewayValidatingLikeIngest")
                && line.contains("io.shardflow.ingest.validate.SampleDecoder"));
    }

    @Test
    void shouldFailWhenProductionCodeImportsTestTooling() {
        assertThatThrownBy(() -> DependencyRules.PRODUCTION_HAS_NO_TEST_TOOLING.check(fixtures))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SinkStartingALocalStack")
                .hasMessageContaining("no production code may reach the chaos harness or the local stack");
    }

    @Test
    void shouldFailWhenTheDatasetImportsAService() {
        EvaluationResult result = DependencyRules.DATASET_IS_THE_FORMAT_ONLY.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("FormatCallingTheSink")
                && line.contains("io.shardflow.sink.SinkHook"));
    }

    @Test
    void shouldFailWhenTheSchemasImportAnotherModule() {
        EvaluationResult result = DependencyRules.SCHEMAS_STAND_ALONE.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("SchemaUsingTheFormat")
                && line.contains("io.shardflow.dataset.spec.DType"));
    }

    @Test
    void shouldFailWhenTheConsoleCallsIntoAService() {
        EvaluationResult result = DependencyRules.CONSOLE_ONLY_READS.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("ConsoleCommittingLikeTheSink")
                && line.contains("io.shardflow.sink.SinkHook"));
    }

    @Test
    void shouldFailWhenAServiceImportsTheConsole() {
        EvaluationResult result = DependencyRules.SERVICES_STAY_SERVICES.evaluate(fixtures);

        assertThat(result.getFailureReport().getDetails()).anyMatch(line -> line.contains("SinkServingTheConsole")
                && line.contains("io.shardflow.console.ConsoleServer"));
    }

    @Test
    void shouldFailARuleThatChecksNoClassAtAll() {
        // A renamed package must not turn a rule into one that passes by checking nothing.
        assertThatThrownBy(() -> DependencyRules.STACK_BELOW_CHAOS.evaluate(fixtures))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("failed to check any classes");
    }
}
