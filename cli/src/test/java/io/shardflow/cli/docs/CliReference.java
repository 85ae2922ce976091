package io.shardflow.cli.docs;

import io.shardflow.cli.Shardflow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * docs/reference/cli.md from picocli's model of {@code bin/shardflow}: every command and subcommand,
 * its options and arguments with their defaults. Variables stay as written ({@code ${env:X:-Y}} reads
 * "$X, else Y"), so the page does not depend on the environment of the machine that made it.
 */
final class CliReference {

    /** {@code ${env:NAME:-default}}, {@code ${sys:NAME}}, {@code ${picocli.help.name.0:--h}}: a source, a name, a fallback. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(?:(env|sys):)?([A-Za-z0-9_.-]+?)(?::-([^{}]*))?}");

    private CliReference() {
    }

    static String page() {
        CommandLine root = new CommandLine(new Shardflow());
        Map<String, CommandSpec> commands = new LinkedHashMap<>();
        collect(root.getCommandSpec(), commands);
        StringBuilder out = new StringBuilder(Markdown.generatedBanner("Command-line reference",
                "the picocli model of io.shardflow.cli.Shardflow"));
        CommandSpec top = root.getCommandSpec();
        out.append(text(top.usageMessage().description())).append("\n\n");
        out.append("Every command answers `-h`/`--help` with the same text as this page. ");
        out.append("A default written `$NAME, else VALUE` comes from the environment variable `NAME` when it is set.\n\n");
        out.append("## Environment\n\n").append(Markdown.codeBlock("text", stripIndent(top.usageMessage().footer())));
        out.append("## Exit codes\n\n");
        top.usageMessage().exitCodeList().forEach((code, meaning) -> out.append("- `").append(code.strip()).append("`: ")
                .append(meaning.strip()).append("\n"));
        out.append("\n## Commands\n\n");
        List<List<String>> index = new ArrayList<>();
        commands.forEach((path, spec) -> index.add(List.of("[" + Markdown.code(path) + "](#" + anchor(path) + ")",
                Markdown.cell(firstSentence(spec)))));
        out.append(Markdown.table(List.of("command", "what it does"), index));
        commands.forEach((path, spec) -> out.append(command(path, spec)));
        return out.toString();
    }

    /** Every visible command below {@code spec}, depth first, in declaration order; aliases once. */
    private static void collect(CommandSpec spec, Map<String, CommandSpec> into) {
        for (CommandLine sub : new LinkedHashMap<>(spec.subcommands()).values().stream().distinct().toList()) {
            CommandSpec child = sub.getCommandSpec();
            if (child.usageMessage().hidden() || child.userObject() instanceof CommandLine.HelpCommand) {
                continue;
            }
            child.interpolateVariables(false);
            into.putIfAbsent(child.qualifiedName(" "), child);
            collect(child, into);
        }
    }

    private static String command(String path, CommandSpec spec) {
        StringBuilder out = new StringBuilder("## ").append(path).append("\n\n");
        out.append(text(spec.usageMessage().description())).append("\n\n");
        out.append(Markdown.codeBlock("text", List.of(synopsis(path, spec))));
        List<List<String>> args = new ArrayList<>();
        for (PositionalParamSpec param : spec.positionalParameters()) {
            if (!param.hidden()) {
                args.add(List.of(Markdown.code(param.paramLabel()), Markdown.cell(param.arity().toString()),
                        Markdown.cell(description(param))));
            }
        }
        if (!args.isEmpty()) {
            out.append(Markdown.table(List.of("argument", "count", "description"), args));
        }
        List<List<String>> options = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            if (!option.hidden()) {
                String label = option.typeInfo().isBoolean() ? "" : " " + option.paramLabel();
                String names = Arrays.stream(option.names()).map(name -> Markdown.code(readable(name) + label))
                        .collect(Collectors.joining(", "));
                String shown = defaultOf(option);
                // the description often ends with the default already; the table has a column for it
                String described = description(option).replace(" (default: " + shown + ")", "");
                options.add(List.of(names, Markdown.cell(shown), Markdown.cell(described)));
            }
        }
        if (!options.isEmpty()) {
            out.append(Markdown.table(List.of("option", "default", "description"), options));
        }
        String[] footer = spec.usageMessage().footer();
        if (footer.length > 0) {
            String heading = spec.usageMessage().footerHeading().replace("%n", "").strip();
            out.append("**").append(heading.isEmpty() ? "More" : heading.replaceAll(":$", "")).append("**\n\n");
            out.append(Markdown.codeBlock("text", stripIndent(footer)));
        }
        return out.toString();
    }

    /** picocli's synopsis spells its own option names as variables; this one names only what a reader types. */
    private static String synopsis(String path, CommandSpec spec) {
        StringBuilder line = new StringBuilder(path);
        if (spec.options().stream().anyMatch(option -> !option.hidden())) {
            line.append(" [OPTIONS]");
        }
        if (!spec.subcommands().isEmpty()) {
            line.append(" COMMAND");
        }
        for (PositionalParamSpec param : spec.positionalParameters()) {
            if (param.hidden()) {
                continue;
            }
            String label = param.paramLabel() + (param.arity().max() > 1 ? "..." : "");
            line.append(' ').append(param.arity().min() == 0 ? "[" + label + "]" : label);
        }
        return line.toString();
    }

    private static String description(ArgSpec arg) {
        String described = String.join(" ", arg.description());
        String shown = arg.defaultValue() == null ? "none" : readable(arg.defaultValue());
        described = described.replace("${DEFAULT-VALUE}", shown);
        Iterable<String> candidates = arg.completionCandidates();
        if (candidates != null) {
            List<String> values = new ArrayList<>();
            candidates.forEach(values::add);
            described = described.replace("${COMPLETION-CANDIDATES}", String.join(", ", values));
        }
        return format(described);
    }

    private static String defaultOf(OptionSpec option) {
        if (option.defaultValue() != null) {
            return option.defaultValue().isEmpty() ? "(empty)" : readable(option.defaultValue());
        }
        return "";
    }

    /** {@code ${env:X:-Y}} as "$X, else Y"; {@code ${sys:user.home}} as "~"; {@code ${sys:shardflow.home:-.}} as the checkout. */
    static String readable(String value) {
        String current = value;
        for (int guard = 0; guard < 10; guard++) {
            Matcher m = VARIABLE.matcher(current);
            if (!m.find()) {
                return current;
            }
            String replacement;
            if (m.group(1) == null) {
                replacement = m.group(3) == null ? "" : m.group(3);
            } else if (m.group(1).equals("env")) {
                replacement = "$" + m.group(2) + (m.group(3) == null ? "" : ", else " + m.group(3));
            } else if (m.group(2).equals("user.home")) {
                replacement = "~";
            } else if (m.group(2).equals("shardflow.home")) {
                replacement = "<checkout>";
            } else {
                replacement = "<" + m.group(2) + ">";
            }
            current = current.substring(0, m.start()) + replacement + current.substring(m.end());
        }
        return current;
    }

    private static String text(String[] lines) {
        return format(String.join(" ", lines));
    }

    /** picocli renders descriptions through String.format: %n is a line break, %% a percent sign. */
    private static String format(String text) {
        return text.replace("%n", "\n").replace("%%", "%").strip();
    }

    private static List<String> stripIndent(String[] lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            out.add(line.replace("%n", "").replace("%%", "%").replaceFirst("^ {2}", "").stripTrailing());
        }
        return out;
    }

    private static String firstSentence(CommandSpec spec) {
        String text = text(spec.usageMessage().description());
        int end = text.indexOf(". ");
        return end < 0 ? text : text.substring(0, end + 1);
    }

    /** The id MkDocs (Python-Markdown's toc) gives the heading: lower case, runs of other characters as one dash. */
    static String anchor(String heading) {
        return heading.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_ -]", "").strip().replaceAll("[\\s-]+", "-");
    }
}
