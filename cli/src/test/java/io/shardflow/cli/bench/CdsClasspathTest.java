package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdsClasspathTest {

    @TempDir
    Path dir;

    @Test
    void shouldPackDirectoriesAndCopyADistributionJarWithoutItsConfDirectory() throws Exception {
        Path dist = Files.createDirectories(dir.resolve("dist"));
        Files.createDirectories(dist.resolve("conf"));
        Files.writeString(dist.resolve("conf/log4j2.xml"), "<Configuration/>");
        Path service = jar(dist.resolve("service.jar"), "lib/a.jar conf/");
        Path plain = jar(dir.resolve("plain.jar"), null);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.createDirectories(classes.resolve("io/example"));
        Files.write(classes.resolve("io/example/Service.class"), new byte[] {(byte) 0xCA, (byte) 0xFE});

        CdsClasspath cds = CdsClasspath.of(String.join(File.pathSeparator, classes.toString(), service.toString(), plain.toString()),
                dir.resolve("copies"));

        // A reactor build puts a module's target/classes on the class path: its classes must reach the services.
        assertThat(cds.classpath().split(File.pathSeparator))
                .containsExactly(dir.resolve("copies/dir-0.jar").toString(), dir.resolve("copies/service.jar").toString(), plain.toString());
        try (JarFile packed = new JarFile(dir.resolve("copies/dir-0.jar").toFile())) {
            assertThat(packed.getJarEntry("io/example/Service.class")).isNotNull();
        }
        try (JarFile copy = new JarFile(dir.resolve("copies/service.jar").toFile())) {
            assertThat(copy.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH)).isNull();
            assertThat(copy.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS)).isEqualTo("example.Main");
            assertThat(copy.getJarEntry("example/Main.class")).isNotNull();
        }
        assertThat(cds.jvmOptions()).containsExactly("-Dlog4j2.configurationFile=" + dist.resolve("conf/log4j2.xml"));
    }

    private static Path jar(Path file, String classPath) throws Exception {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "example.Main");
        if (classPath != null) {
            manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(file), manifest)) {
            out.putNextEntry(new JarEntry("example/Main.class"));
            out.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
            out.closeEntry();
        }
        return file;
    }
}
