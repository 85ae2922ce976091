package io.shardflow.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: headless Chromium (Debian's chromium and chromium-driver, which
 * scripts/setup-browser.sh installs) driven through WebDriver. It clicks through datasets, a version, a
 * snapshot and a sample, compares two snapshots and opens the dead letters, checking what a person sees
 * (pictures decoded, hostile strings shown as text and never run), and saves the screenshots the documentation
 * shows to docs/images/.
 */
class ConsoleBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of(System.getProperty("maven.multiModuleProjectDirectory", ".."))
            .resolve("docs").resolve("images");

    @TempDir
    static Path work;
    private static ConsoleStack data;
    private static ConsoleServer console;
    private static WebDriver browser;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "chromium and chromium-driver are not installed (bash scripts/setup-browser.sh installs them)");
        data = ConsoleStack.get();
        console = data.console(work.resolve("cache"), Optional.empty());
        base = "http://127.0.0.1:" + console.port();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // As root on a machine with no network: no sandbox, no GPU, nothing that phones home, a fresh profile.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--user-data-dir=" + Files.createDirectories(work.resolve("profile")));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (console != null) {
            console.close();
        }
    }

    @Test
    void shouldNavigateFromTheDatasetsToASampleAndShowItsPicturesAndEscapedLabels() throws Exception {
        browser.get(base + "/");
        screenshot("console-datasets.png");
        browser.findElement(By.linkText("v1")).click();
        assertThat(browser.getTitle()).startsWith("cams/v1");
        assertThat(browser.findElement(By.tagName("main")).getText()).contains("front cameras <i>and</i> friends", "first-light");
        assertThat(browser.findElements(By.cssSelector("svg.chart polyline"))).hasSize(3);
        screenshot("console-version.png");

        browser.findElement(By.linkText("latest snapshot")).click();
        new WebDriverWait(browser, Duration.ofSeconds(60)).until(d -> {
            d.navigate().refresh();
            return d.findElements(By.id("stats-progress")).isEmpty();
        });
        assertThat(browser.findElement(By.id("label-histogram")).getText()).contains("cat", "dog");
        screenshot("console-snapshot.png");

        browser.findElement(By.linkText("browse samples")).click();
        String firstPage = browser.getCurrentUrl();
        screenshot("console-samples.png");
        // A page reads at most 8 shards: on a loaded machine the pipeline seals more, smaller shards by
        // age, and the samples run on over "next page" links. Every page is checked, every sample counted.
        long tiles = 0;
        boolean hostileLabelShown = false;
        while (true) {
            List<WebElement> onPage = browser.findElements(By.cssSelector("#sample-grid a.tile"));
            tiles += onPage.size();
            waitForImages();
            assertThat(loadedImages()).as("every thumbnail decoded by the browser").isEqualTo(onPage.size());
            hostileLabelShown |= browser.findElement(By.id("sample-grid")).getText().contains(ConsoleStack.HOSTILE_LABEL);
            List<WebElement> next = browser.findElements(By.id("next-page"));
            if (next.isEmpty()) {
                break;
            }
            next.get(0).click();
        }
        assertThat(tiles).isEqualTo(ConsoleStack.SAMPLES - 4);
        assertThat(hostileLabelShown).isTrue();

        browser.get(firstPage);
        while (browser.findElements(By.cssSelector("#sample-grid a.tile img[alt='s-6']")).isEmpty()) {
            browser.findElement(By.id("next-page")).click();
        }
        browser.findElement(By.cssSelector("#sample-grid a.tile img[alt='s-6']")).click();
        String page = browser.findElement(By.tagName("main")).getText();
        assertThat(page).contains("s-6", ConsoleStack.HOSTILE_LABEL, "depth", "float32 4\u00d75");
        waitForImages();
        assertThat(loadedImages()).isEqualTo(2); // the JPEG frame and the uint8 pixels
        assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);
        screenshot("console-sample.png");
    }

    @Test
    void shouldCompareTwoSnapshotsFromTheVersionPage() throws Exception {
        browser.get(base + "/datasets/cams/v1");
        WebElement from = browser.findElement(By.name("a"));
        from.clear();
        from.sendKeys(Long.toString(data.snapshotBeforeDelete));
        WebElement to = browser.findElement(By.name("b"));
        to.clear();
        to.sendKeys(Long.toString(data.snapshotAfterDelete));
        browser.findElement(By.id("diff-button")).click();

        assertThat(browser.findElement(By.id("diff-summary")).getText()).contains("net samples", "-4");
        assertThat(browser.findElement(By.id("deletions")).getText()).contains(ConsoleStack.DELETE_REASON, "deviceId in [cam-bad]");
        screenshot("console-diff.png");
    }

    @Test
    void shouldOpenTheDeadLettersAndOneDecodedPayload() throws Exception {
        browser.get(base + "/");
        browser.findElement(By.linkText("Dead letters")).click();
        assertThat(browser.findElement(By.id("reasons")).getText()).contains("UNKNOWN_DATASET " + ConsoleStack.DEAD_LETTERS);
        assertThat(browser.findElement(By.id("dead-letters")).getText()).contains(ConsoleStack.HOSTILE_DEVICE);
        screenshot("console-dead-letters.png");

        browser.findElement(By.cssSelector("#dead-letters td.mono a")).click();
        assertThat(browser.findElement(By.id("payload")).getText()).contains("io.shardflow.schemas.Sample", "ghost",
                ConsoleStack.HOSTILE_LABEL);
        assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);
        screenshot("console-dead-letter.png");
    }

    private static void waitForImages() {
        new WebDriverWait(browser, Duration.ofSeconds(30)).until(d -> (Boolean) ((JavascriptExecutor) d)
                .executeScript("return Array.from(document.images).every(i => i.complete)"));
    }

    private static long loadedImages() {
        return (Long) ((JavascriptExecutor) browser).executeScript("return Array.from(document.images).filter(i => i.naturalWidth > 0).length");
    }

    private static void screenshot(String name) throws Exception {
        File shot = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), SCREENSHOTS.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
