package io.shardflow.dataset.runs;

import io.shardflow.dataset.spec.Names;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Object keys of training checkpoints (dataset/FORMAT.md, "Training checkpoints"), the same as the
 * Python package's {@code shardflow.checkpoints.layout}:
 *
 * <pre>
 * runs/&lt;run&gt;/step-&lt;step&gt;/MANIFEST.json
 * runs/&lt;run&gt;/step-&lt;step&gt;/&lt;attempt&gt;/rank-&lt;rank&gt;/&lt;file&gt;
 * runs/&lt;run&gt;/latest/&lt;descending step&gt;-&lt;step&gt;.json
 * runs/&lt;run&gt;/pins/&lt;step&gt;.json
 * </pre>
 *
 * Steps are 20 zero-padded digits; a pointer's name starts with each digit replaced by 9 - d, so
 * the first key of a listing of {@code latest/} is the newest. Not the commit log's checkpoints.
 */
public final class RunLayout {

    public static final String RUNS = "runs/";
    public static final String MANIFEST = "MANIFEST.json";
    private static final Pattern STEP = Pattern.compile("step-(\\d{20})/");
    private static final Pattern POINTER = Pattern.compile("(\\d{20})-(\\d{20})\\.json");
    private static final Pattern PIN = Pattern.compile("(\\d{20})\\.json");
    private static final Pattern ATTEMPT = Pattern.compile("[0-9a-f]{16}");
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    private RunLayout() {
    }

    public static String runPrefix(String run) {
        Names.requireDatasetName("run name", run);
        return RUNS + run + "/";
    }

    public static String stepsPrefix(String run) {
        return runPrefix(run) + "step-";
    }

    public static String stepPrefix(String run, long step) {
        return stepsPrefix(run) + digits(step) + "/";
    }

    public static String manifestKey(String run, long step) {
        return stepPrefix(run, step) + MANIFEST;
    }

    public static String fileKey(String run, long step, String attempt, int rank, String name) {
        if (!ATTEMPT.matcher(attempt).matches()) {
            throw new IllegalArgumentException("attempt '" + attempt + "' is not 16 lowercase hex digits");
        }
        if (rank < 0 || rank > 99_999) {
            throw new IllegalArgumentException("rank must be in 0..99999, got " + rank);
        }
        if (!FILE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("checkpoint file name '" + name + "' is invalid");
        }
        return stepPrefix(run, step) + attempt + "/" + String.format("rank-%05d/", rank) + name;
    }

    /** The step of a {@code runs/<run>/step-<step>/} folder. */
    public static OptionalLong stepOfPrefix(String run, String prefix) {
        String base = runPrefix(run);
        if (!prefix.startsWith(base)) {
            return OptionalLong.empty();
        }
        Matcher m = STEP.matcher(prefix.substring(base.length()));
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    public static String pointersPrefix(String run) {
        return runPrefix(run) + "latest/";
    }

    public static String pointerKey(String run, long step) {
        return pointersPrefix(run) + descending(step) + "-" + digits(step) + ".json";
    }

    public static OptionalLong stepOfPointer(String run, String key) {
        String prefix = pointersPrefix(run);
        if (!key.startsWith(prefix)) {
            return OptionalLong.empty();
        }
        Matcher m = POINTER.matcher(key.substring(prefix.length()));
        if (!m.matches() || !m.group(1).equals(descending(Long.parseLong(m.group(2))))) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(m.group(2)));
    }

    public static String pinsPrefix(String run) {
        return runPrefix(run) + "pins/";
    }

    public static String pinKey(String run, long step) {
        return pinsPrefix(run) + digits(step) + ".json";
    }

    public static OptionalLong stepOfPin(String run, String key) {
        String prefix = pinsPrefix(run);
        if (!key.startsWith(prefix)) {
            return OptionalLong.empty();
        }
        Matcher m = PIN.matcher(key.substring(prefix.length()));
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    static String digits(long step) {
        if (step < 0) {
            throw new IllegalArgumentException("step must be >= 0, got " + step);
        }
        return String.format("%020d", step);
    }

    private static String descending(long step) {
        StringBuilder out = new StringBuilder(20);
        for (char c : digits(step).toCharArray()) {
            out.append((char) ('9' - (c - '0')));
        }
        return out.toString();
    }
}
