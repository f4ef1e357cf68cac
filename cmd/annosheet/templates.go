package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/templates"
)

func templatesCommand() *cli.Command {
	return &cli.Command{
		Name:  "templates",
		Usage: "list, show and check annotation templates",
		Description: "Example:\n" +
			"   annosheet templates list\n" +
			"   annosheet templates show legal-gaps > my-scheme.yaml\n" +
			"   annosheet templates check my-scheme.yaml",
		Action: cliargs.Group,
		Subcommands: []*cli.Command{
			{
				Name:        "list",
				Usage:       "list the built-in templates",
				Description: "Example:\n   annosheet templates list",
				Action: func(c *cli.Context) error {
					if err := cliargs.NoArgs(c); err != nil {
						return err
					}
					return runTemplatesList(c.App.Writer)
				},
			},
			{
				Name:      "show",
				Usage:     "print a template as YAML (the text you can copy, edit and pass back with --template FILE)",
				ArgsUsage: "NAME|FILE",
				Description: "Example:\n" +
					"   annosheet templates show qa-span-errors > my-scheme.yaml\n" +
					"   annosheet templates show legal-gaps --json",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: "print the checked template, defaults filled in, as JSON"},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return cliargs.Usagef("templates show takes one template name or file")
					}
					return runTemplatesShow(c.Args().First(), c.Bool("json"), c.App.Writer)
				},
			},
			{
				Name:        "check",
				Usage:       "check a template file; problems are reported with their YAML line",
				ArgsUsage:   "FILE...",
				Description: "Example:\n   annosheet templates check my-scheme.yaml",
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return cliargs.Usagef("templates check needs a template file")
					}
					return runTemplatesCheck(c.Args().Slice(), c.App.Writer)
				},
			},
		},
	}
}

func runTemplatesList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSUMMARY")
	for _, name := range templates.BuiltinNames() {
		t, err := templates.Builtin(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", t.Name, t.Version, t.Summary)
	}
	return tw.Flush()
}

func runTemplatesShow(name string, asJSON bool, w io.Writer) error {
	t, err := input.Template(name, nil)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t)
	}
	_, err = w.Write(t.Source)
	return err
}

func runTemplatesCheck(files []string, w io.Writer) error {
	var failed []error
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("templates check: %w", err)
		}
		t, err := input.TemplateFile(f, nil)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		fmt.Fprintf(w, "%s: ok (%s version %d: %d context columns, %d questions, %d rules, rows per %s)\n",
			f, t.Name, t.Version, len(t.Context), len(t.Questions), len(t.Rules), t.Rows.Per)
	}
	switch len(failed) {
	case 0:
		return nil
	case 1:
		return failed[0]
	}
	var all templates.ErrorList
	for _, err := range failed {
		if l, ok := err.(templates.ErrorList); ok {
			all = append(all, l...)
		} else {
			return err
		}
	}
	return all
}
