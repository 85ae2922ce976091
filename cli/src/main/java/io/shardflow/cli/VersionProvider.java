package io.shardflow.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version} of every command: the project version Maven wrote into the build. */
final class VersionProvider implements IVersionProvider {

    static final String RESOURCE = "/shardflow-version.properties";

    @Override
    public String[] getVersion() {
        return new String[] {"shardflow " + version(), "Java ${java.version} (${java.vendor}), ${os.name} ${os.arch}"};
    }

    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
