package io.shardflow.cli.doctor;

/**
 * One line of {@code shardflow doctor}: what was checked, how it went, and how to fix it.
 *
 * @param check  short name, e.g. {@code kafka.topic.samples}
 * @param status OK, WARN (works, but not as the pipeline expects) or FAIL (the pipeline cannot run)
 * @param detail what was found
 * @param fix    what to do; empty when OK
 */
public record Finding(String check, Status status, String detail, String fix) {

    /** How a check went. */
    public enum Status { OK, WARN, FAIL }

    public static Finding ok(String check, String detail) {
        return new Finding(check, Status.OK, detail, "");
    }

    public static Finding warn(String check, String detail, String fix) {
        return new Finding(check, Status.WARN, detail, fix);
    }

    public static Finding fail(String check, String detail, String fix) {
        return new Finding(check, Status.FAIL, detail, fix);
    }

    /** The one line a person reads. */
    public String line() {
        return String.format("%-4s %-30s %s%s", status, check, detail, fix.isEmpty() ? "" : " -> " + fix);
    }

    static String messageOf(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return root == e || e.getMessage() == null ? message : e.getMessage() + " (" + message + ")";
    }
}
