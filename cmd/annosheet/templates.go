package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/render"
)

func templatesCommand() *cli.Command {
	return &cli.Command{
		Name:        "templates",
		Usage:       "list, show and check annotation templates",
		Description: help("templates"),
		Action:      cliargs.Group,
		Subcommands: []*cli.Command{
			{
				Name:        "list",
				Usage:       "list the built-in templates",
				Description: "Example:\n   annosheet templates list",
				Action: func(c *cli.Context) error {
					if err := cliargs.NoArgs(c); err != nil {
						return err
					}
					return render.TemplateList(c.App.Writer)
				},
			},
			{
				Name:        "show",
				Usage:       "print a template as YAML (the text you can copy, edit and pass back with --template FILE)",
				ArgsUsage:   "NAME|FILE",
				Description: help("templates-show"),
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

func runTemplatesShow(name string, asJSON bool, w io.Writer) error {
	t, err := input.Template(name, nil)
	if err != nil {
		return err
	}
	return render.ShowTemplate(w, t, asJSON)
}

func runTemplatesCheck(files []string, w io.Writer) error {
	checks := render.TemplateChecks{W: w}
	for _, f := range files {
		// A file that is not there is a slip of its name, said at once.
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("templates check: %w", err)
		}
		t, err := input.TemplateFile(f, nil)
		checks.Add(f, t, err)
	}
	return checks.Err()
}
