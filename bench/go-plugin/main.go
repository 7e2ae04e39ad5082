// The Go reference of `npm run bench -- release` (bench/release.ts): a resource plugin as small as Go and
// Pulumi's Go SDK make one. It serves the engine's ResourceProvider service, answers GetPluginInfo and
// GetSchema, and prints its port as every plugin does; the benchmark sets the plugin's start and memory
// beside it.
package main

import (
	"context"
	"fmt"
	"net"
	"os"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

type provider struct {
	pulumirpc.UnimplementedResourceProviderServer
}

func (provider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: "0.0.0"}, nil
}

func (provider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	return &pulumirpc.GetSchemaResponse{Schema: `{"name":"floor","version":"0.0.0"}`}, nil
}

func main() {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := grpc.NewServer()
	pulumirpc.RegisterResourceProviderServer(server, provider{})
	fmt.Println(listener.Addr().(*net.TCPAddr).Port)
	if err := server.Serve(listener); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
