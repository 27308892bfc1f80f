# payrec shell completion. Generated from the command tree by `payrec completion`; do not edit.
# Install: source <(payrec completion bash)   or copy to /etc/bash_completion.d/payrec
_payrec_child() {
  case "$1|$2" in
    '|fixed-recurring') echo 'fixed-recurring' ;;
    '|fr') echo 'fixed-recurring' ;;
    '|variable-recurring') echo 'variable-recurring' ;;
    '|vr') echo 'variable-recurring' ;;
    '|on-demand') echo 'on-demand' ;;
    '|od') echo 'on-demand' ;;
    '|one-time') echo 'one-time' ;;
    '|ot') echo 'one-time' ;;
    '|wallet-to-wallet') echo 'wallet-to-wallet' ;;
    '|w2w') echo 'wallet-to-wallet' ;;
    '|scheduled-payments') echo 'scheduled-payments' ;;
    '|sp') echo 'scheduled-payments' ;;
    '|dollar-cost-average') echo 'dollar-cost-average' ;;
    '|dca') echo 'dollar-cost-average' ;;
    '|webhook-notifications') echo 'webhook-notifications' ;;
    '|wn') echo 'webhook-notifications' ;;
    '|transfers') echo 'transfers' ;;
    '|emulator') echo 'emulator' ;;
    '|auth') echo 'auth' ;;
    '|config') echo 'config' ;;
    '|sync') echo 'sync' ;;
    '|sql') echo 'sql' ;;
    '|db') echo 'db' ;;
    '|verify') echo 'verify' ;;
    '|rates') echo 'rates' ;;
    '|subscriptions') echo 'subscriptions' ;;
    '|metrics') echo 'metrics' ;;
    '|close') echo 'close' ;;
    '|api') echo 'api' ;;
    '|doctor') echo 'doctor' ;;
    '|completion') echo 'completion' ;;
    '|help') echo 'help' ;;
    'fixed-recurring|short-urls') echo 'fixed-recurring short-urls' ;;
    'fixed-recurring|billings') echo 'fixed-recurring billings' ;;
    'fixed-recurring|cancellations') echo 'fixed-recurring cancellations' ;;
    'fixed-recurring|cancellation') echo 'fixed-recurring cancellation' ;;
    'fixed-recurring|webhook') echo 'fixed-recurring webhook' ;;
    'fixed-recurring|plans') echo 'fixed-recurring plans' ;;
    'fixed-recurring short-urls|list') echo 'fixed-recurring short-urls list' ;;
    'fixed-recurring short-urls|get') echo 'fixed-recurring short-urls get' ;;
    'fixed-recurring short-urls|delete') echo 'fixed-recurring short-urls delete' ;;
    'fixed-recurring short-urls|create') echo 'fixed-recurring short-urls create' ;;
    'fixed-recurring short-urls|update') echo 'fixed-recurring short-urls update' ;;
    'fixed-recurring webhook|get') echo 'fixed-recurring webhook get' ;;
    'fixed-recurring webhook|delete') echo 'fixed-recurring webhook delete' ;;
    'fixed-recurring webhook|set') echo 'fixed-recurring webhook set' ;;
    'fixed-recurring plans|add') echo 'fixed-recurring plans add' ;;
    'fixed-recurring plans|remove') echo 'fixed-recurring plans remove' ;;
    'variable-recurring|cancellations') echo 'variable-recurring cancellations' ;;
    'variable-recurring|cancellation') echo 'variable-recurring cancellation' ;;
    'variable-recurring|cancellation-requests') echo 'variable-recurring cancellation-requests' ;;
    'variable-recurring|cancellation-request') echo 'variable-recurring cancellation-request' ;;
    'variable-recurring|transfers') echo 'variable-recurring transfers' ;;
    'on-demand|short-urls') echo 'on-demand short-urls' ;;
    'on-demand|transfers') echo 'on-demand transfers' ;;
    'on-demand short-urls|list') echo 'on-demand short-urls list' ;;
    'on-demand short-urls|get') echo 'on-demand short-urls get' ;;
    'on-demand short-urls|delete') echo 'on-demand short-urls delete' ;;
    'on-demand short-urls|create') echo 'on-demand short-urls create' ;;
    'on-demand short-urls|update') echo 'on-demand short-urls update' ;;
    'one-time|payments') echo 'one-time payments' ;;
    'one-time|transfers') echo 'one-time transfers' ;;
    'one-time payments|list') echo 'one-time payments list' ;;
    'one-time payments|get') echo 'one-time payments get' ;;
    'wallet-to-wallet|payments') echo 'wallet-to-wallet payments' ;;
    'wallet-to-wallet|transfers') echo 'wallet-to-wallet transfers' ;;
    'wallet-to-wallet payments|list') echo 'wallet-to-wallet payments list' ;;
    'wallet-to-wallet payments|get') echo 'wallet-to-wallet payments get' ;;
    'scheduled-payments|transfers') echo 'scheduled-payments transfers' ;;
    'dollar-cost-average|executions') echo 'dollar-cost-average executions' ;;
    'webhook-notifications|get') echo 'webhook-notifications get' ;;
    'webhook-notifications|verify') echo 'webhook-notifications verify' ;;
    'webhook-notifications|listen') echo 'webhook-notifications listen' ;;
    'emulator|start') echo 'emulator start' ;;
    'emulator|trigger') echo 'emulator trigger' ;;
    'auth|login') echo 'auth login' ;;
    'auth|status') echo 'auth status' ;;
    'auth|logout') echo 'auth logout' ;;
    'config|list') echo 'config list' ;;
    'config|get') echo 'config get' ;;
    'config|set') echo 'config set' ;;
    'config|profiles') echo 'config profiles' ;;
    'config|use') echo 'config use' ;;
    'db|init') echo 'db init' ;;
    'db|grant-reader') echo 'db grant-reader' ;;
    'verify|ack') echo 'verify ack' ;;
    'verify|acks') echo 'verify acks' ;;
    'rates|sync') echo 'rates sync' ;;
    'rates|import') echo 'rates import' ;;
    'rates|feeds') echo 'rates feeds' ;;
    'rates|check') echo 'rates check' ;;
    *) return 1 ;;
  esac
}
_payrec_words() {
  case "$1" in
    '') echo 'fixed-recurring variable-recurring on-demand one-time wallet-to-wallet scheduled-payments dollar-cost-average webhook-notifications transfers emulator auth config sync sql db verify rates subscriptions metrics close api doctor completion help' ;;
    'fixed-recurring') echo 'short-urls billings cancellations cancellation webhook plans' ;;
    'fixed-recurring short-urls') echo 'list get delete create update' ;;
    'fixed-recurring short-urls list') echo '' ;;
    'fixed-recurring short-urls get') echo '' ;;
    'fixed-recurring short-urls delete') echo '' ;;
    'fixed-recurring short-urls create') echo '' ;;
    'fixed-recurring short-urls update') echo '' ;;
    'fixed-recurring billings') echo '' ;;
    'fixed-recurring cancellations') echo '' ;;
    'fixed-recurring cancellation') echo '' ;;
    'fixed-recurring webhook') echo 'get delete set' ;;
    'fixed-recurring webhook get') echo '' ;;
    'fixed-recurring webhook delete') echo '' ;;
    'fixed-recurring webhook set') echo '' ;;
    'fixed-recurring plans') echo 'add remove' ;;
    'fixed-recurring plans add') echo '' ;;
    'fixed-recurring plans remove') echo '' ;;
    'variable-recurring') echo 'cancellations cancellation cancellation-requests cancellation-request transfers' ;;
    'variable-recurring cancellations') echo '' ;;
    'variable-recurring cancellation') echo '' ;;
    'variable-recurring cancellation-requests') echo '' ;;
    'variable-recurring cancellation-request') echo '' ;;
    'variable-recurring transfers') echo '' ;;
    'on-demand') echo 'short-urls transfers' ;;
    'on-demand short-urls') echo 'list get delete create update' ;;
    'on-demand short-urls list') echo '' ;;
    'on-demand short-urls get') echo '' ;;
    'on-demand short-urls delete') echo '' ;;
    'on-demand short-urls create') echo '' ;;
    'on-demand short-urls update') echo '' ;;
    'on-demand transfers') echo '' ;;
    'one-time') echo 'payments transfers' ;;
    'one-time payments') echo 'list get' ;;
    'one-time payments list') echo '' ;;
    'one-time payments get') echo '' ;;
    'one-time transfers') echo '' ;;
    'wallet-to-wallet') echo 'payments transfers' ;;
    'wallet-to-wallet payments') echo 'list get' ;;
    'wallet-to-wallet payments list') echo '' ;;
    'wallet-to-wallet payments get') echo '' ;;
    'wallet-to-wallet transfers') echo '' ;;
    'scheduled-payments') echo 'transfers' ;;
    'scheduled-payments transfers') echo '' ;;
    'dollar-cost-average') echo 'executions' ;;
    'dollar-cost-average executions') echo '' ;;
    'webhook-notifications') echo 'get verify listen' ;;
    'webhook-notifications get') echo '' ;;
    'webhook-notifications verify') echo '' ;;
    'webhook-notifications listen') echo '' ;;
    'transfers') echo '' ;;
    'emulator') echo 'start trigger' ;;
    'emulator start') echo '' ;;
    'emulator trigger') echo '' ;;
    'auth') echo 'login status logout' ;;
    'auth login') echo '' ;;
    'auth status') echo '' ;;
    'auth logout') echo '' ;;
    'config') echo 'list get set profiles use' ;;
    'config list') echo '' ;;
    'config get') echo '' ;;
    'config set') echo '' ;;
    'config profiles') echo '' ;;
    'config use') echo '' ;;
    'sync') echo 'fixed-recurring/short-urls fr/short-urls fixed-recurring/billings fr/billings fixed-recurring/cancellations fr/cancellations variable-recurring/cancellations vr/cancellations variable-recurring/cancellation-requests vr/cancellation-requests variable-recurring/transfers vr/transfers on-demand/short-urls od/short-urls on-demand/transfers od/transfers one-time/payments ot/payments one-time/transfers ot/transfers wallet-to-wallet/payments w2w/payments wallet-to-wallet/transfers w2w/transfers scheduled-payments/transfers sp/transfers dollar-cost-average/executions dca/executions' ;;
    'sql') echo '' ;;
    'db') echo 'init grant-reader' ;;
    'db init') echo '' ;;
    'db grant-reader') echo '' ;;
    'verify') echo 'ack acks' ;;
    'verify ack') echo '' ;;
    'verify acks') echo '' ;;
    'rates') echo 'sync import feeds check' ;;
    'rates sync') echo '' ;;
    'rates import') echo '' ;;
    'rates feeds') echo '' ;;
    'rates check') echo '' ;;
    'subscriptions') echo '' ;;
    'metrics') echo '' ;;
    'close') echo '' ;;
    'api') echo '' ;;
    'doctor') echo '' ;;
    'completion') echo 'bash zsh fish' ;;
    'help') echo 'reference fixed-recurring variable-recurring on-demand one-time wallet-to-wallet scheduled-payments dollar-cost-average webhook-notifications transfers emulator auth config sync sql db verify rates subscriptions metrics close api doctor completion' ;;
  esac
}
_payrec_flags() {
  case "$1" in
    '') echo '--version -V --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring short-urls') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring short-urls list') echo '--plan-id --limit --all --page-size --offset --concurrency --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring short-urls get') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring short-urls delete') echo '--yes -y --ignore-missing --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring short-urls create') echo '--name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring short-urls update') echo '--name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring billings') echo '--plan-id --subscription-id --triggered-by --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring cancellations') echo '--plan-id --triggered-by --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring cancellation') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring webhook') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring webhook get') echo '--plan-id --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring webhook delete') echo '--plan-id --yes -y --ignore-missing --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring webhook set') echo '--plan-id --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring plans') echo '--db --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring plans add') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'fixed-recurring plans remove') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'variable-recurring') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'variable-recurring cancellations') echo '--plan-id --triggered-by --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'variable-recurring cancellation') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'variable-recurring cancellation-requests') echo '--plan-id --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'variable-recurring cancellation-request') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'variable-recurring transfers') echo '--plan-id --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand short-urls') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand short-urls list') echo '--plan-id --limit --all --page-size --offset --concurrency --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand short-urls get') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand short-urls delete') echo '--yes -y --ignore-missing --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand short-urls create') echo '--name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand short-urls update') echo '--name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'on-demand transfers') echo '--plan-id --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'one-time') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'one-time payments') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'one-time payments list') echo '--transaction-hash --tag --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'one-time payments get') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'one-time transfers') echo '--tag --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'wallet-to-wallet') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'wallet-to-wallet payments') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'wallet-to-wallet payments list') echo '--tag --receiver --token --email --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'wallet-to-wallet payments get') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'wallet-to-wallet transfers') echo '--email --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'scheduled-payments') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'scheduled-payments transfers') echo '--schedule-id --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'dollar-cost-average') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'dollar-cost-average executions') echo '--strategy-id --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'webhook-notifications') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'webhook-notifications get') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'webhook-notifications verify') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'webhook-notifications listen') echo '--port --host --forward-to --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'transfers') echo '--product --plan-id --sender --receiver --token --tag --email --schedule-id --triggered-by --db --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'emulator') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'emulator start') echo '--port --host --allow-remote --webhook-hosts --records --seed --now --fault-rate --fault-kinds --fault-seed --latency --rate-limit --live --late-fraction --late-max --pending-fraction --remove-fraction --move-fraction --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'emulator trigger') echo '--plan-id --type --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'auth') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'auth login') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'auth status') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'auth logout') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'config') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'config list') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'config get') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'config set') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'config profiles') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'config use') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'sync') echo '--plan-id --strategy-id --db --lookback --from --full --concurrency --parquet --wait --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'sql') echo '--file --db --limit --all --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'db') echo '--profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'db init') echo '--db --print-sql --writer --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'db grant-reader') echo '--db --print-sql --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'verify') echo '--db --fail-if-any --new --recheck --from --to --period --confirmations --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'verify ack') echo '--reason --by --db --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'verify acks') echo '--db --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'rates') echo '--token --from --to --db --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'rates sync') echo '--currency --from --to --db --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'rates import') echo '--db --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'rates feeds') echo '--count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'rates check') echo '--db --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'subscriptions') echo '--plan-id --at --grace --db --sync --short-url-plans --state --past-due-for --period --from --to --currency --rates --rate-max-age --rates-missing --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'metrics') echo '--plan-id --at --grace --db --sync --short-url-plans --period --from --to --interval --by --chart --movements --currency --rates --rate-max-age --rates-missing --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'close') echo '--plan-id --at --grace --db --sync --short-url-plans --verify --confirmations --fail-if-any --currency --rates --rate-max-age --rates-missing --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'api') echo '--method -X --query --body --all --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'doctor') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'completion') echo '--profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help' ;;
    'help') echo '--help' ;;
  esac
}
_payrec_values() {
  case "$1" in
    --format) echo 'table json jsonl csv xlsx html' ;;
    -f) echo 'table json jsonl csv xlsx html' ;;
    --sort) echo 'asc desc' ;;
    --chain) echo 'bsc ethereum polygon sandbox' ;;
    --flatten) echo 'receivers swaps' ;;
    --chart) echo 'day week month' ;;
    --time-format) echo 'unix iso' ;;
    --period) echo 'today yesterday this-month last-month last-quarter last-year' ;;
    --tz) echo 'UTC Africa/Abidjan Africa/Accra Africa/Addis_Ababa Africa/Algiers Africa/Asmera Africa/Bamako Africa/Bangui Africa/Banjul Africa/Bissau Africa/Blantyre Africa/Brazzaville Africa/Bujumbura Africa/Cairo Africa/Casablanca Africa/Ceuta Africa/Conakry Africa/Dakar Africa/Dar_es_Salaam Africa/Djibouti Africa/Douala Africa/El_Aaiun Africa/Freetown Africa/Gaborone Africa/Harare Africa/Johannesburg Africa/Juba Africa/Kampala Africa/Khartoum Africa/Kigali Africa/Kinshasa Africa/Lagos Africa/Libreville Africa/Lome Africa/Luanda Africa/Lubumbashi Africa/Lusaka Africa/Malabo Africa/Maputo Africa/Maseru Africa/Mbabane Africa/Mogadishu Africa/Monrovia Africa/Nairobi Africa/Ndjamena Africa/Niamey Africa/Nouakchott Africa/Ouagadougou Africa/Porto-Novo Africa/Sao_Tome Africa/Tripoli Africa/Tunis Africa/Windhoek America/Adak America/Anchorage America/Anguilla America/Antigua America/Araguaina America/Argentina/La_Rioja America/Argentina/Rio_Gallegos America/Argentina/Salta America/Argentina/San_Juan America/Argentina/San_Luis America/Argentina/Tucuman America/Argentina/Ushuaia America/Aruba America/Asuncion America/Bahia America/Bahia_Banderas America/Barbados America/Belem America/Belize America/Blanc-Sablon America/Boa_Vista America/Bogota America/Boise America/Buenos_Aires America/Cambridge_Bay America/Campo_Grande America/Cancun America/Caracas America/Catamarca America/Cayenne America/Cayman America/Chicago America/Chihuahua America/Ciudad_Juarez America/Coral_Harbour America/Cordoba America/Costa_Rica America/Coyhaique America/Creston America/Cuiaba America/Curacao America/Danmarkshavn America/Dawson America/Dawson_Creek America/Denver America/Detroit America/Dominica America/Edmonton America/Eirunepe America/El_Salvador America/Fort_Nelson America/Fortaleza America/Glace_Bay America/Godthab America/Goose_Bay America/Grand_Turk America/Grenada America/Guadeloupe America/Guatemala America/Guayaquil America/Guyana America/Halifax America/Havana America/Hermosillo America/Indiana/Knox America/Indiana/Marengo America/Indiana/Petersburg America/Indiana/Tell_City America/Indiana/Vevay America/Indiana/Vincennes America/Indiana/Winamac America/Indianapolis America/Inuvik America/Iqaluit America/Jamaica America/Jujuy America/Juneau America/Kentucky/Monticello America/Kralendijk America/La_Paz America/Lima America/Los_Angeles America/Louisville America/Lower_Princes America/Maceio America/Managua America/Manaus America/Marigot America/Martinique America/Matamoros America/Mazatlan America/Mendoza America/Menominee America/Merida America/Metlakatla America/Mexico_City America/Miquelon America/Moncton America/Monterrey America/Montevideo America/Montserrat America/Nassau America/New_York America/Nome America/Noronha America/North_Dakota/Beulah America/North_Dakota/Center America/North_Dakota/New_Salem America/Ojinaga America/Panama America/Paramaribo America/Phoenix America/Port-au-Prince America/Port_of_Spain America/Porto_Velho America/Puerto_Rico America/Punta_Arenas America/Rankin_Inlet America/Recife America/Regina America/Resolute America/Rio_Branco America/Santarem America/Santiago America/Santo_Domingo America/Sao_Paulo America/Scoresbysund America/Sitka America/St_Barthelemy America/St_Johns America/St_Kitts America/St_Lucia America/St_Thomas America/St_Vincent America/Swift_Current America/Tegucigalpa America/Thule America/Tijuana America/Toronto America/Tortola America/Vancouver America/Whitehorse America/Winnipeg America/Yakutat Antarctica/Casey Antarctica/Davis Antarctica/DumontDUrville Antarctica/Macquarie Antarctica/Mawson Antarctica/McMurdo Antarctica/Palmer Antarctica/Rothera Antarctica/Syowa Antarctica/Troll Antarctica/Vostok Arctic/Longyearbyen Asia/Aden Asia/Almaty Asia/Amman Asia/Anadyr Asia/Aqtau Asia/Aqtobe Asia/Ashgabat Asia/Atyrau Asia/Baghdad Asia/Bahrain Asia/Baku Asia/Bangkok Asia/Barnaul Asia/Beirut Asia/Bishkek Asia/Brunei Asia/Calcutta Asia/Chita Asia/Colombo Asia/Damascus Asia/Dhaka Asia/Dili Asia/Dubai Asia/Dushanbe Asia/Famagusta Asia/Gaza Asia/Hebron Asia/Hong_Kong Asia/Hovd Asia/Irkutsk Asia/Jakarta Asia/Jayapura Asia/Jerusalem Asia/Kabul Asia/Kamchatka Asia/Karachi Asia/Katmandu Asia/Khandyga Asia/Krasnoyarsk Asia/Kuala_Lumpur Asia/Kuching Asia/Kuwait Asia/Macau Asia/Magadan Asia/Makassar Asia/Manila Asia/Muscat Asia/Nicosia Asia/Novokuznetsk Asia/Novosibirsk Asia/Omsk Asia/Oral Asia/Phnom_Penh Asia/Pontianak Asia/Pyongyang Asia/Qatar Asia/Qostanay Asia/Qyzylorda Asia/Rangoon Asia/Riyadh Asia/Saigon Asia/Sakhalin Asia/Samarkand Asia/Seoul Asia/Shanghai Asia/Singapore Asia/Srednekolymsk Asia/Taipei Asia/Tashkent Asia/Tbilisi Asia/Tehran Asia/Thimphu Asia/Tokyo Asia/Tomsk Asia/Ulaanbaatar Asia/Urumqi Asia/Ust-Nera Asia/Vientiane Asia/Vladivostok Asia/Yakutsk Asia/Yekaterinburg Asia/Yerevan Atlantic/Azores Atlantic/Bermuda Atlantic/Canary Atlantic/Cape_Verde Atlantic/Faeroe Atlantic/Madeira Atlantic/Reykjavik Atlantic/South_Georgia Atlantic/St_Helena Atlantic/Stanley Australia/Adelaide Australia/Brisbane Australia/Broken_Hill Australia/Darwin Australia/Eucla Australia/Hobart Australia/Lindeman Australia/Lord_Howe Australia/Melbourne Australia/Perth Australia/Sydney Europe/Amsterdam Europe/Andorra Europe/Astrakhan Europe/Athens Europe/Belgrade Europe/Berlin Europe/Bratislava Europe/Brussels Europe/Bucharest Europe/Budapest Europe/Busingen Europe/Chisinau Europe/Copenhagen Europe/Dublin Europe/Gibraltar Europe/Guernsey Europe/Helsinki Europe/Isle_of_Man Europe/Istanbul Europe/Jersey Europe/Kaliningrad Europe/Kiev Europe/Kirov Europe/Lisbon Europe/Ljubljana Europe/London Europe/Luxembourg Europe/Madrid Europe/Malta Europe/Mariehamn Europe/Minsk Europe/Monaco Europe/Moscow Europe/Oslo Europe/Paris Europe/Podgorica Europe/Prague Europe/Riga Europe/Rome Europe/Samara Europe/San_Marino Europe/Sarajevo Europe/Saratov Europe/Simferopol Europe/Skopje Europe/Sofia Europe/Stockholm Europe/Tallinn Europe/Tirane Europe/Ulyanovsk Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Vilnius Europe/Volgograd Europe/Warsaw Europe/Zagreb Europe/Zurich Indian/Antananarivo Indian/Chagos Indian/Christmas Indian/Cocos Indian/Comoro Indian/Kerguelen Indian/Mahe Indian/Maldives Indian/Mauritius Indian/Mayotte Indian/Reunion Pacific/Apia Pacific/Auckland Pacific/Bougainville Pacific/Chatham Pacific/Easter Pacific/Efate Pacific/Enderbury Pacific/Fakaofo Pacific/Fiji Pacific/Funafuti Pacific/Galapagos Pacific/Gambier Pacific/Guadalcanal Pacific/Guam Pacific/Honolulu Pacific/Kiritimati Pacific/Kosrae Pacific/Kwajalein Pacific/Majuro Pacific/Marquesas Pacific/Midway Pacific/Nauru Pacific/Niue Pacific/Norfolk Pacific/Noumea Pacific/Pago_Pago Pacific/Palau Pacific/Pitcairn Pacific/Ponape Pacific/Port_Moresby Pacific/Rarotonga Pacific/Saipan Pacific/Tahiti Pacific/Tarawa Pacific/Tongatapu Pacific/Truk Pacific/Wake Pacific/Wallis' ;;
    --product) echo 'variable-recurring vr on-demand od one-time ot wallet-to-wallet w2w scheduled-payments sp fixed-recurring fr' ;;
    *) return 1 ;;
  esac
}
_payrec_columns() {
  case "$1" in
    'fixed-recurring short-urls list') echo 'path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link' ;;
    'fixed-recurring short-urls get') echo 'path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link' ;;
    'fixed-recurring billings') echo 'subscriptionId success amount fee token receiver timestamp cycleStart cycleEnd triggeredBy transactionHash transactionStatus outcome' ;;
    'fixed-recurring cancellations') echo 'subscriptionId timestamp forced triggeredBy transactionHash transactionStatus' ;;
    'fixed-recurring cancellation') echo 'subscriptionId timestamp forced triggeredBy transactionHash transactionStatus' ;;
    'fixed-recurring webhook get') echo 'webhook' ;;
    'fixed-recurring plans') echo 'planId token amount period periodInWords subscriptions counted seenIn' ;;
    'variable-recurring cancellations') echo 'subscriptionId timestamp forced triggeredBy transactionHash transactionStatus' ;;
    'variable-recurring cancellation') echo 'subscriptionId timestamp forced triggeredBy transactionHash transactionStatus' ;;
    'variable-recurring cancellation-requests') echo 'subscriptionId timestamp transactionHash transactionStatus' ;;
    'variable-recurring cancellation-request') echo 'subscriptionId timestamp transactionHash transactionStatus' ;;
    'variable-recurring transfers') echo 'description amount fee token category timestamp transactionHash transactionStatus sender receiver planId subscriptionId' ;;
    'on-demand short-urls list') echo 'path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link' ;;
    'on-demand short-urls get') echo 'path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link' ;;
    'on-demand transfers') echo 'description amount fee token category timestamp transactionHash transactionStatus sender receiver planId subscriptionId' ;;
    'one-time payments list') echo 'id description sender token category tag timestamp transactionHash transactionStatus receivers receivers.user receivers.amount receivers.fee' ;;
    'one-time payments get') echo 'id description sender token category tag timestamp transactionHash transactionStatus receivers receivers.user receivers.amount receivers.fee' ;;
    'one-time transfers') echo 'description amount fee token category timestamp transactionHash transactionStatus sender receiver oneTimeId' ;;
    'wallet-to-wallet payments list') echo 'id description email token category tag timestamp serviceFee receivers receivers.user receivers.amount receivers.fee receivers.timestamp receivers.transactionHash receivers.transactionStatus' ;;
    'wallet-to-wallet payments get') echo 'id description email token category tag timestamp serviceFee receivers receivers.user receivers.amount receivers.fee receivers.timestamp receivers.transactionHash receivers.transactionStatus' ;;
    'wallet-to-wallet transfers') echo 'description amount fee token category timestamp transactionHash transactionStatus email receiver payment_id' ;;
    'scheduled-payments transfers') echo 'description amount fee token category timestamp transactionHash transactionStatus sender receiver scheduleId' ;;
    'dollar-cost-average executions') echo 'strategyId timestamp transactionHash transactionStatus inputToken fee swaps swaps.inputAmount swaps.outputAmount swaps.outputToken' ;;
    'webhook-notifications get') echo 'id type event timestamp transactionHash transactionStatus data extra' ;;
    'transfers') echo 'product description amount fee token category timestamp transactionHash transactionStatus sender receiver planId subscriptionId oneTimeId email payment_id scheduleId success cycleStart cycleEnd triggeredBy outcome' ;;
    'sync') echo 'collection table fetched new updated unchanged deleted requests seconds note' ;;
    'verify') echo 'collection checked newlyReorged new acked pending missing reorged unconfirmed reverted spoofed mismatch verified note' ;;
    'verify ack') echo 'transactionHash verdict collection reason ackedBy ackedAt' ;;
    'verify acks') echo 'transactionHash verdict collection reason ackedBy ackedAt' ;;
    'rates') echo 'time chain token currency rate source address note feed description phase roundId answer decimals file line sha256' ;;
    'rates feeds') echo 'token pair feed status description decimals phase round rate updatedAt problem' ;;
    'rates check') echo 'line token currency time rate feed round until verdict problem' ;;
    'subscriptions') echo 'subscriptionId planId token amount period mrr started paidThrough lastAttempt failedAttempts cancelledAt forced endsAt daysPastDue state' ;;
    'metrics') echo 'from to token subscriptions_start subscriptions_end new reactivated churned mrr_start mrr_end mrr_new mrr_reactivated mrr_churned mrr_net logo_churn revenue_churn attempts failed failure_rate dunning_cases recovered recovered_amount lost open collected failed_amount planId interval' ;;
    'doctor') echo 'check status detail' ;;
    *) return 1 ;;
  esac
}
_payrec_takes_value() {
  case "$1" in
    --at|--base-url|--body|--by|--chain|--chart|--columns|--concurrency|--confirmations|--currency|--db|--email|--error-url|--extra|--fail-if-any|--fault-kinds|--fault-rate|--fault-seed|--file|--flatten|--format|--forward-to|--from|--grace|--host|--interval|--jq|--late-fraction|--late-max|--latency|--limit|--live|--lookback|--method|--move-fraction|--name|--now|--offset|--output|--page-size|--parquet|--past-due-for|--pending-fraction|--period|--plan-id|--port|--product|--profile|--query|--rate-limit|--rate-max-age|--rates|--rates-missing|--reason|--receiver|--recheck|--records|--remove-fraction|--retries|--rpc|--schedule-id|--seed|--sender|--sort|--state|--status|--strategy-id|--subscription-id|--success-url|--tag|--time-format|--timeout|--to|--token|--transaction-hash|--triggered-by|--type|--tz|--verdict|--wait|--webhook-hosts|--writer|-X|-f|-o) return 0 ;;
  esac
  return 1
}
# Walks the words before the cursor to the command they name (aliases resolved).
# (Named cmdpath, not path: in zsh $path is tied to $PATH.)
_payrec_path() {
  local cmdpath="" skip=0 w next
  for w in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$w" in
      -*) _payrec_takes_value "$w" && skip=1; continue ;;
    esac
    next=$(_payrec_child "$cmdpath" "$w") && cmdpath="$next"
  done
  echo "$cmdpath"
}
_payrec() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmdpath values
  cmdpath=$(_payrec_path "${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if values=$(_payrec_values "$prev"); then
    COMPREPLY=($(compgen -W "$values" -- "$cur")); return
  fi
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --columns)
      # A comma-separated list: complete the field after the last comma, keep what is before it.
      local fields before=""
      fields=$(_payrec_columns "$cmdpath") || { COMPREPLY=(); return; }
      [[ "$cur" == *,* ]] && before="${cur%,*},"
      COMPREPLY=($(compgen -P "$before" -W "$fields" -- "${cur##*,}"))
      compopt -o nospace 2>/dev/null
      return ;;
  esac
  if _payrec_takes_value "$prev"; then COMPREPLY=(); return; fi
  if [[ "$cur" == -* ]]; then
    # A command's flags include those it inherits (record flags only where it prints records).
    COMPREPLY=($(compgen -W "$(_payrec_flags "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_payrec_words "$cmdpath")" -- "$cur"))
  fi
}
complete -o default -F _payrec payrec
