package io.shardflow.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The rules over the production classes of every module (test classes and the violation fixtures excluded). */
class DependencyRulesTest {

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.shardflow");
    }

    @Test
    void shouldSeeTheProductionClassesOfEveryModule() {
        assertThat(production.stream().map(JavaClass::getName)).contains("io.shardflow.schemas.Sample",
                "io.shardflow.dataset.log.CommitLog", "io.shardflow.reader.DatasetReader", "io.shardflow.edge.EdgePublisher",
                "io.shardflow.app.ConfigFiles", "io.shardflow.ingest.IngestApp", "io.shardflow.sink.SinkWorker",
                "io.shardflow.gateway.GatewayApp", "io.shardflow.stack.LocalStack", "io.shardflow.chaos.ChaosRun",
                "io.shardflow.cli.Shardflow", "io.shardflow.console.ConsoleServer");
        assertThat(production.stream().map(JavaClass::getPackageName)).noneMatch(name -> name.contains(".violation"));
    }

    @Test
    void shouldKeepTheServicesFreeOfReaderAndTooling() {
        DependencyRules.SERVICES_STAY_SERVICES.check(production);
    }

    @Test
    void shouldKeepTheGatewayOutOfTheOtherServices() {
        DependencyRules.SERVICES_STAY_APART.check(production);
    }

    @Test
    void shouldKeepTestToolingOutOfProductionCode() {
        DependencyRules.PRODUCTION_HAS_NO_TEST_TOOLING.check(production);
    }

    @Test
    void shouldKeepTheDatasetFormatAtTheBottom() {
        DependencyRules.DATASET_IS_THE_FORMAT_ONLY.check(production);
    }

    @Test
    void shouldKeepTheSchemasStandingAlone() {
        DependencyRules.SCHEMAS_STAND_ALONE.check(production);
    }

    @Test
    void shouldLetTheReaderNeedOnlyTheFormat() {
        DependencyRules.READER_NEEDS_ONLY_THE_FORMAT.check(production);
    }

    @Test
    void shouldKeepTheConsoleReadOnly() {
        DependencyRules.CONSOLE_ONLY_READS.check(production);
    }

    @Test
    void shouldLetNothingImportTheCommands() {
        DependencyRules.NOTHING_IMPORTS_COMMANDS.check(production);
    }

    @Test
    void shouldKeepTheLocalStackBelowTheChaosHarness() {
        DependencyRules.STACK_BELOW_CHAOS.check(production);
    }
}
