//! The `aipc` binary: everything is in the library; this only starts the runtime.

#[tokio::main]
async fn main() {
    let code = aipc::cli::main().await;
    std::process::exit(code);
}
