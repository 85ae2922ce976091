package io.shardflow.stack;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the local tooling starts a child process: the stack's servers and the pipeline's
 * service JVMs. Output (stdout and stderr) is appended to a log file, stdin is {@code /dev/null}.
 *
 * <p>Detached: the child gets its own session ({@code setsid}), so neither a terminal hang-up nor
 * a Ctrl-C aimed at the launching command reaches it.
 *
 * <p>Attached: {@code setpriv --pdeathsig KILL} makes the kernel kill the child when the thread
 * that spawned it dies, so a JVM that is itself killed (a surefire timeout, kill -9) leaves no child
 * behind; a shutdown hook would not run then. pdeathsig fires when the spawning thread ends, not
 * the JVM, so every attached child is spawned from one daemon thread that lives as long as the JVM.
 *
 * <p>Both tools (util-linux, always on Debian) exec the command, so the recorded pid is the
 * child's: setsid only forks when the caller leads its process group, which a JVM child never does.
 */
public final class ProcessSpawner {

    private static final Logger log = LoggerFactory.getLogger(ProcessSpawner.class);
    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    /** submit, never execute: a task that throws inside execute() ends the thread, and with it every child. */
    private static final ExecutorService SPAWNER = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "shardflow-spawner");
        thread.setDaemon(true);
        return thread;
    });

    private ProcessSpawner() {
    }

    /**
     * Starts {@code command} in {@code directory} (null: this JVM's), with {@code environment} on top
     * of this JVM's, its output appended to {@code logFile}.
     *
     * @param detached whether the child outlives this JVM (see the class comment)
     */
    public static Process spawn(List<String> command, Path logFile, Path directory, Map<String, String> environment,
                                boolean detached) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(launcher(command, detached))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                // no stdin pipe: a detached child must not depend on this JVM's end of it
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        builder.environment().putAll(environment);
        if (detached) {
            return builder.start();
        }
        try {
            return SPAWNER.submit(builder::start).get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + command.get(0), e);
        }
    }

    /** The java launcher of this JVM, so children run on the same JDK. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static List<String> launcher(List<String> command, boolean detached) {
        List<String> prefix = detached ? List.of(SETSID.toString()) : List.of(SETPRIV.toString(), "--pdeathsig", "KILL", "--");
        Path tool = Path.of(prefix.get(0));
        if (!Files.isExecutable(tool)) {
            log.warn("{} not found; {} runs without it{}", tool, command.get(0),
                    detached ? " and may stop when this terminal closes" : " and may outlive a killed JVM");
            return command;
        }
        List<String> launched = new ArrayList<>(prefix);
        launched.addAll(command);
        return launched;
    }
}
