package io.shardflow.cli.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A class path that class-data sharing accepts: jars only. A directory of classes (a module's
 * target/classes when the bench runs inside a reactor build) is packed into a jar. A service's distribution jar names
 * {@code conf/} (its log configuration) in its manifest's Class-Path, and the JVM refuses to archive
 * classes from a class path that holds a non-empty directory; so such a jar is copied without its
 * Class-Path (its lib/ jars are on the class path already) and the log configuration is named by
 * {@code -Dlog4j2.configurationFile} instead, for every variant alike.
 *
 * @param classpath          the jars, joined with the path separator
 * @param logConfiguration   the first {@code conf/log4j2.xml} a manifest pointed to, if any
 */
record CdsClasspath(String classpath, Optional<Path> logConfiguration) {

    static CdsClasspath of(String classpath, Path copies) throws IOException {
        Files.createDirectories(copies);
        List<String> jars = new ArrayList<>();
        Path logConfiguration = null;
        for (String entry : classpath.split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (Files.isDirectory(path)) {
                // A module's classes in a reactor build (target/classes): packed as a jar of their own.
                Path packed = copies.resolve("dir-" + jars.size() + ".jar");
                packDirectory(path, packed);
                jars.add(packed.toString());
                continue;
            }
            if (!entry.endsWith(".jar") || !Files.isRegularFile(path)) {
                continue;
            }
            try (JarFile jar = new JarFile(path.toFile())) {
                Manifest manifest = jar.getManifest();
                String classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                if (classPath == null || !classPath.contains("conf/")) {
                    jars.add(entry);
                    continue;
                }
                Path conf = path.resolveSibling("conf").resolve("log4j2.xml");
                if (logConfiguration == null && Files.isRegularFile(conf)) {
                    logConfiguration = conf;
                }
                Path copy = copies.resolve(path.getFileName());
                withoutClassPath(jar, manifest, copy);
                jars.add(copy.toString());
            }
        }
        return new CdsClasspath(String.join(File.pathSeparator, jars), Optional.ofNullable(logConfiguration));
    }

    /** JVM options every variant gets, so they differ only in the archive. */
    List<String> jvmOptions() {
        return logConfiguration.map(conf -> List.of("-Dlog4j2.configurationFile=" + conf)).orElse(List.of());
    }

    private static void packDirectory(Path directory, Path jarFile) throws IOException {
        try (OutputStream file = Files.newOutputStream(jarFile); JarOutputStream out = new JarOutputStream(file);
             java.util.stream.Stream<Path> files = Files.walk(directory)) {
            for (Path source : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(new JarEntry(directory.relativize(source).toString().replace(File.separatorChar, '/')));
                Files.copy(source, out);
                out.closeEntry();
            }
        }
    }

    private static void withoutClassPath(JarFile jar, Manifest manifest, Path copy) throws IOException {
        Manifest stripped = new Manifest(manifest);
        stripped.getMainAttributes().remove(Attributes.Name.CLASS_PATH);
        try (OutputStream file = Files.newOutputStream(copy); JarOutputStream out = new JarOutputStream(file, stripped)) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (entry.getName().equalsIgnoreCase(JarFile.MANIFEST_NAME)) {
                    continue;
                }
                out.putNextEntry(new JarEntry(entry.getName()));
                try (InputStream in = jar.getInputStream(entry)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
    }
}
