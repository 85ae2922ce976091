package io.shardflow.app;

/** A process cannot start; {@link #setting()} names the configuration key to look at. */
public final class StartupException extends RuntimeException {

    private final String setting;

    public StartupException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    public String setting() {
        return setting;
    }
}
