// Command otelcol-tailfix is an OpenTelemetry Collector with the tailfix
// logs processor: the OTLP receiver, the tailfix processor, and the
// debug, OTLP (gRPC) and OTLP/HTTP exporters. It takes the collector's
// own command line: otelcol-tailfix --config config.yaml.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"

	"github.com/tailfix/tailfix/otelcol/tailfixprocessor"
)

// version is set at build time with -X main.version=…; otherwise it comes
// from the build information.
var version = ""

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	cmd := otelcol.NewCommand(settings(components))
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SilenceErrors = true
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(stderr, "otelcol-tailfix: error: %v\n", err)
		return 1
	}
	return 0
}

// settings describe the distribution: its factories, and its
// configuration read from files, environment variables and inline YAML.
func settings(factories func() (otelcol.Factories, error)) otelcol.CollectorSettings {
	return otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-tailfix",
			Description: "OpenTelemetry Collector with the tailfix logs processor",
			Version:     buildVersion(),
		},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(), fileprovider.NewFactory(), yamlprovider.NewFactory(),
				},
			},
		},
	}
}

// components are the distribution's receivers, processors and exporters.
func components() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Processors, err = otelcol.MakeFactoryMap(tailfixprocessor.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap(debugexporter.NewFactory(), otlpexporter.NewFactory(), otlphttpexporter.NewFactory()); err != nil {
		return f, err
	}
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, nil
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
