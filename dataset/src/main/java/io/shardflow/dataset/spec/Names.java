package io.shardflow.dataset.spec;

import java.util.regex.Pattern;

/**
 * The naming rules shared by specs and object keys. Dataset names and versions become path
 * segments of object keys, so the rule keeps them free of {@code /}, leading dots and anything a
 * shell or URL would need to escape.
 */
public final class Names {

    /** Dataset names and versions: used verbatim as object-key segments. */
    public static final Pattern DATASET_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    /** Tensor names: valid Python identifiers, so {@code h5file["tensors"][name]} and attribute access both work. */
    public static final Pattern TENSOR_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    private Names() {
    }

    /**
     * Checks a dataset name or version.
     *
     * @param what the setting's name for the message, e.g. "dataset name"
     * @return the value, for chaining in constructors
     */
    public static String requireDatasetName(String what, String value) {
        if (value == null || !DATASET_NAME.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " '" + value + "' is invalid: expected 1-128 characters of"
                    + " letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return value;
    }

    public static String requireTensorName(String value) {
        if (value == null || !TENSOR_NAME.matcher(value).matches()) {
            throw new IllegalArgumentException("tensor name '" + value + "' is invalid: expected 1-64 characters of"
                    + " letters, digits or '_', not starting with a digit");
        }
        return value;
    }
}
