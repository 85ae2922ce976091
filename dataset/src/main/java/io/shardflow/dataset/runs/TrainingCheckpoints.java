package io.shardflow.dataset.runs;

import io.shardflow.dataset.internal.Json;
import io.shardflow.dataset.runs.CheckpointManifest.SavedFile;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.store.ObjectInfo;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Reads the training checkpoints the Python trainer API saves beside the data: runs, their saved
 * steps (a step exists when its manifest does, nothing else counts), manifests, pins, and
 * verification of every file against its manifest. Writes only pins.
 */
public final class TrainingCheckpoints {

    private static final int PAGE = 1000;
    private final ObjectStore store;

    public TrainingCheckpoints(ObjectStore store) {
        this.store = store;
    }

    public ObjectStore store() {
        return store;
    }

    public List<String> runs() {
        List<String> runs = new ArrayList<>();
        for (String prefix : store.listPrefixes(RunLayout.RUNS)) {
            String name = prefix.substring(RunLayout.RUNS.length(), prefix.length() - 1);
            if (Names.DATASET_NAME.matcher(name).matches()) {
                runs.add(name);
            }
        }
        return runs;
    }

    /** Steps that have a folder, saved or not, ascending. */
    public List<Long> stepFolders(String run) {
        List<Long> steps = new ArrayList<>();
        for (String prefix : store.listPrefixes(RunLayout.stepsPrefix(run))) {
            RunLayout.stepOfPrefix(run, prefix).ifPresent(steps::add);
        }
        steps.sort(null);
        return steps;
    }

    public Optional<CheckpointManifest> manifest(String run, long step) {
        return store.get(RunLayout.manifestKey(run, step)).map(b -> CheckpointManifestCodec.decode(b, run, step));
    }

    /** Every saved step of the run, oldest first (one GET per step folder). */
    public List<CheckpointManifest> saved(String run) {
        List<CheckpointManifest> saved = new ArrayList<>();
        for (long step : stepFolders(run)) {
            manifest(run, step).ifPresent(saved::add);
        }
        return saved;
    }

    public Optional<CheckpointManifest> latest(String run) {
        List<Long> steps = stepFolders(run);
        for (int i = steps.size() - 1; i >= 0; i--) {
            Optional<CheckpointManifest> manifest = manifest(run, steps.get(i));
            if (manifest.isPresent()) {
                return manifest;
            }
        }
        return Optional.empty();
    }

    /** The step the newest {@code latest/} pointer names (a save killed after its manifest has none yet). */
    public OptionalLong newestPointer(String run) {
        for (String key : store.list(RunLayout.pointersPrefix(run), null, 1)) {
            return RunLayout.stepOfPointer(run, key);
        }
        return OptionalLong.empty();
    }

    /** Pinned steps: step to note. */
    public NavigableMap<Long, String> pins(String run) {
        NavigableMap<Long, String> pins = new TreeMap<>();
        String cursor = null;
        List<String> page;
        do {
            page = store.list(RunLayout.pinsPrefix(run), cursor, PAGE);
            for (String key : page) {
                cursor = key;
                OptionalLong step = RunLayout.stepOfPin(run, key);
                if (step.isPresent()) {
                    String note = store.get(key).map(b -> Json.parseObject(b, key).path("note").asText("")).orElse("");
                    pins.put(step.getAsLong(), note);
                }
            }
        } while (page.size() == PAGE);
        return pins;
    }

    /** Pins a saved step (gc keeps it); false if it was pinned already. */
    public boolean pin(String run, long step, String note, String by, Instant at) {
        if (manifest(run, step).isEmpty()) {
            throw new IllegalArgumentException("run '" + run + "' has no saved step " + step
                    + " (see 'shardflow ckpt list " + run + "')");
        }
        var doc = Json.object().put("run", run).put("step", step).put("note", note).put("by", by)
                .put("at", at.toString());
        return store.putIfAbsent(RunLayout.pinKey(run, step), Json.pretty(doc)) == PutOutcome.CREATED;
    }

    /** Removes a pin; false if the step was not pinned. */
    public boolean unpin(String run, long step) {
        String key = RunLayout.pinKey(run, step);
        boolean pinned = store.head(key).isPresent();
        store.delete(key);
        return pinned;
    }

    /** Reads every file the manifest names and compares size and SHA-256; the problems found, none if it verifies. */
    public List<String> verify(CheckpointManifest manifest) {
        List<String> problems = new ArrayList<>();
        for (SavedFile file : manifest.files()) {
            Optional<ObjectInfo> info = store.head(file.key());
            if (info.isEmpty()) {
                problems.add(file.key() + " (" + file.name() + ") is named by the manifest but missing");
            } else if (info.get().size() != file.bytes()) {
                problems.add(file.key() + " has " + info.get().size() + " bytes, the manifest says " + file.bytes());
            } else {
                String actual = sha256(file.key(), file.bytes());
                if (!actual.equals(file.sha256())) {
                    problems.add(file.key() + " has sha256 " + actual + ", the manifest says " + file.sha256());
                }
            }
        }
        return problems;
    }

    private String sha256(String key, long bytes) {
        try (InputStream in = store.getRange(key, 0, bytes)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 20];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + key, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
