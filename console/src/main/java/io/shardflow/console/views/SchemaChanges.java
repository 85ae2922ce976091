package io.shardflow.console.views;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** How one version's tensor layout differs from another's, in one line: "+boxes float32 ?x4; label int64 -> int32". */
final class SchemaChanges {

    private SchemaChanges() {
    }

    static String between(DatasetSpec before, DatasetSpec after) {
        if (before.fingerprint().equals(after.fingerprint())) {
            return "same layout";
        }
        Map<String, TensorSpec> old = before.tensors().stream().collect(Collectors.toMap(TensorSpec::name, Function.identity()));
        Map<String, TensorSpec> now = after.tensors().stream().collect(Collectors.toMap(TensorSpec::name, Function.identity()));
        List<String> changes = new ArrayList<>();
        for (TensorSpec t : after.tensors()) {
            TensorSpec was = old.get(t.name());
            if (was == null) {
                changes.add("+" + t.toSpecString());
            } else if (!was.toSpecString().equals(t.toSpecString())) {
                changes.add(was.toSpecString() + " -> " + t.toSpecString());
            }
        }
        before.tensors().stream().filter(t -> !now.containsKey(t.name())).forEach(t -> changes.add("-" + t.toSpecString()));
        if (changes.isEmpty()) {
            changes.add("tensor order changed");
        }
        return String.join("; ", changes);
    }
}
