# payrec shell completion. Generated from the command tree by `payrec completion`; do not edit.
# Install: payrec completion fish > ~/.config/fish/completions/payrec.fish
function __payrec_child
    switch "$argv[1]|$argv[2]"
        case '|fixed-recurring'
            echo 'fixed-recurring'
        case '|fr'
            echo 'fixed-recurring'
        case '|variable-recurring'
            echo 'variable-recurring'
        case '|vr'
            echo 'variable-recurring'
        case '|on-demand'
            echo 'on-demand'
        case '|od'
            echo 'on-demand'
        case '|one-time'
            echo 'one-time'
        case '|ot'
            echo 'one-time'
        case '|wallet-to-wallet'
            echo 'wallet-to-wallet'
        case '|w2w'
            echo 'wallet-to-wallet'
        case '|scheduled-payments'
            echo 'scheduled-payments'
        case '|sp'
            echo 'scheduled-payments'
        case '|dollar-cost-average'
            echo 'dollar-cost-average'
        case '|dca'
            echo 'dollar-cost-average'
        case '|webhook-notifications'
            echo 'webhook-notifications'
        case '|wn'
            echo 'webhook-notifications'
        case '|transfers'
            echo 'transfers'
        case '|emulator'
            echo 'emulator'
        case '|auth'
            echo 'auth'
        case '|config'
            echo 'config'
        case '|sync'
            echo 'sync'
        case '|sql'
            echo 'sql'
        case '|db'
            echo 'db'
        case '|verify'
            echo 'verify'
        case '|rates'
            echo 'rates'
        case '|subscriptions'
            echo 'subscriptions'
        case '|metrics'
            echo 'metrics'
        case '|close'
            echo 'close'
        case '|api'
            echo 'api'
        case '|doctor'
            echo 'doctor'
        case '|completion'
            echo 'completion'
        case '|help'
            echo 'help'
        case 'fixed-recurring|short-urls'
            echo 'fixed-recurring short-urls'
        case 'fixed-recurring|billings'
            echo 'fixed-recurring billings'
        case 'fixed-recurring|cancellations'
            echo 'fixed-recurring cancellations'
        case 'fixed-recurring|cancellation'
            echo 'fixed-recurring cancellation'
        case 'fixed-recurring|webhook'
            echo 'fixed-recurring webhook'
        case 'fixed-recurring|plans'
            echo 'fixed-recurring plans'
        case 'fixed-recurring short-urls|list'
            echo 'fixed-recurring short-urls list'
        case 'fixed-recurring short-urls|get'
            echo 'fixed-recurring short-urls get'
        case 'fixed-recurring short-urls|delete'
            echo 'fixed-recurring short-urls delete'
        case 'fixed-recurring short-urls|create'
            echo 'fixed-recurring short-urls create'
        case 'fixed-recurring short-urls|update'
            echo 'fixed-recurring short-urls update'
        case 'fixed-recurring webhook|get'
            echo 'fixed-recurring webhook get'
        case 'fixed-recurring webhook|delete'
            echo 'fixed-recurring webhook delete'
        case 'fixed-recurring webhook|set'
            echo 'fixed-recurring webhook set'
        case 'fixed-recurring plans|add'
            echo 'fixed-recurring plans add'
        case 'fixed-recurring plans|remove'
            echo 'fixed-recurring plans remove'
        case 'variable-recurring|cancellations'
            echo 'variable-recurring cancellations'
        case 'variable-recurring|cancellation'
            echo 'variable-recurring cancellation'
        case 'variable-recurring|cancellation-requests'
            echo 'variable-recurring cancellation-requests'
        case 'variable-recurring|cancellation-request'
            echo 'variable-recurring cancellation-request'
        case 'variable-recurring|transfers'
            echo 'variable-recurring transfers'
        case 'on-demand|short-urls'
            echo 'on-demand short-urls'
        case 'on-demand|transfers'
            echo 'on-demand transfers'
        case 'on-demand short-urls|list'
            echo 'on-demand short-urls list'
        case 'on-demand short-urls|get'
            echo 'on-demand short-urls get'
        case 'on-demand short-urls|delete'
            echo 'on-demand short-urls delete'
        case 'on-demand short-urls|create'
            echo 'on-demand short-urls create'
        case 'on-demand short-urls|update'
            echo 'on-demand short-urls update'
        case 'one-time|payments'
            echo 'one-time payments'
        case 'one-time|transfers'
            echo 'one-time transfers'
        case 'one-time payments|list'
            echo 'one-time payments list'
        case 'one-time payments|get'
            echo 'one-time payments get'
        case 'wallet-to-wallet|payments'
            echo 'wallet-to-wallet payments'
        case 'wallet-to-wallet|transfers'
            echo 'wallet-to-wallet transfers'
        case 'wallet-to-wallet payments|list'
            echo 'wallet-to-wallet payments list'
        case 'wallet-to-wallet payments|get'
            echo 'wallet-to-wallet payments get'
        case 'scheduled-payments|transfers'
            echo 'scheduled-payments transfers'
        case 'dollar-cost-average|executions'
            echo 'dollar-cost-average executions'
        case 'webhook-notifications|get'
            echo 'webhook-notifications get'
        case 'webhook-notifications|verify'
            echo 'webhook-notifications verify'
        case 'webhook-notifications|listen'
            echo 'webhook-notifications listen'
        case 'emulator|start'
            echo 'emulator start'
        case 'emulator|trigger'
            echo 'emulator trigger'
        case 'auth|login'
            echo 'auth login'
        case 'auth|status'
            echo 'auth status'
        case 'auth|logout'
            echo 'auth logout'
        case 'config|list'
            echo 'config list'
        case 'config|get'
            echo 'config get'
        case 'config|set'
            echo 'config set'
        case 'config|profiles'
            echo 'config profiles'
        case 'config|use'
            echo 'config use'
        case 'db|init'
            echo 'db init'
        case 'db|grant-reader'
            echo 'db grant-reader'
        case 'verify|ack'
            echo 'verify ack'
        case 'verify|acks'
            echo 'verify acks'
        case 'rates|sync'
            echo 'rates sync'
        case 'rates|import'
            echo 'rates import'
        case 'rates|feeds'
            echo 'rates feeds'
        case 'rates|check'
            echo 'rates check'
        case '*'
            return 1
    end
end
function __payrec_words
    switch "$argv[1]"
        case ''
            printf '%s\n' fixed-recurring variable-recurring on-demand one-time wallet-to-wallet scheduled-payments dollar-cost-average webhook-notifications transfers emulator auth config sync sql db verify rates subscriptions metrics close api doctor completion help
        case 'fixed-recurring'
            printf '%s\n' short-urls billings cancellations cancellation webhook plans
        case 'fixed-recurring short-urls'
            printf '%s\n' list get delete create update
        case 'fixed-recurring short-urls list'
            printf '%s\n' 
        case 'fixed-recurring short-urls get'
            printf '%s\n' 
        case 'fixed-recurring short-urls delete'
            printf '%s\n' 
        case 'fixed-recurring short-urls create'
            printf '%s\n' 
        case 'fixed-recurring short-urls update'
            printf '%s\n' 
        case 'fixed-recurring billings'
            printf '%s\n' 
        case 'fixed-recurring cancellations'
            printf '%s\n' 
        case 'fixed-recurring cancellation'
            printf '%s\n' 
        case 'fixed-recurring webhook'
            printf '%s\n' get delete set
        case 'fixed-recurring webhook get'
            printf '%s\n' 
        case 'fixed-recurring webhook delete'
            printf '%s\n' 
        case 'fixed-recurring webhook set'
            printf '%s\n' 
        case 'fixed-recurring plans'
            printf '%s\n' add remove
        case 'fixed-recurring plans add'
            printf '%s\n' 
        case 'fixed-recurring plans remove'
            printf '%s\n' 
        case 'variable-recurring'
            printf '%s\n' cancellations cancellation cancellation-requests cancellation-request transfers
        case 'variable-recurring cancellations'
            printf '%s\n' 
        case 'variable-recurring cancellation'
            printf '%s\n' 
        case 'variable-recurring cancellation-requests'
            printf '%s\n' 
        case 'variable-recurring cancellation-request'
            printf '%s\n' 
        case 'variable-recurring transfers'
            printf '%s\n' 
        case 'on-demand'
            printf '%s\n' short-urls transfers
        case 'on-demand short-urls'
            printf '%s\n' list get delete create update
        case 'on-demand short-urls list'
            printf '%s\n' 
        case 'on-demand short-urls get'
            printf '%s\n' 
        case 'on-demand short-urls delete'
            printf '%s\n' 
        case 'on-demand short-urls create'
            printf '%s\n' 
        case 'on-demand short-urls update'
            printf '%s\n' 
        case 'on-demand transfers'
            printf '%s\n' 
        case 'one-time'
            printf '%s\n' payments transfers
        case 'one-time payments'
            printf '%s\n' list get
        case 'one-time payments list'
            printf '%s\n' 
        case 'one-time payments get'
            printf '%s\n' 
        case 'one-time transfers'
            printf '%s\n' 
        case 'wallet-to-wallet'
            printf '%s\n' payments transfers
        case 'wallet-to-wallet payments'
            printf '%s\n' list get
        case 'wallet-to-wallet payments list'
            printf '%s\n' 
        case 'wallet-to-wallet payments get'
            printf '%s\n' 
        case 'wallet-to-wallet transfers'
            printf '%s\n' 
        case 'scheduled-payments'
            printf '%s\n' transfers
        case 'scheduled-payments transfers'
            printf '%s\n' 
        case 'dollar-cost-average'
            printf '%s\n' executions
        case 'dollar-cost-average executions'
            printf '%s\n' 
        case 'webhook-notifications'
            printf '%s\n' get verify listen
        case 'webhook-notifications get'
            printf '%s\n' 
        case 'webhook-notifications verify'
            printf '%s\n' 
        case 'webhook-notifications listen'
            printf '%s\n' 
        case 'transfers'
            printf '%s\n' 
        case 'emulator'
            printf '%s\n' start trigger
        case 'emulator start'
            printf '%s\n' 
        case 'emulator trigger'
            printf '%s\n' 
        case 'auth'
            printf '%s\n' login status logout
        case 'auth login'
            printf '%s\n' 
        case 'auth status'
            printf '%s\n' 
        case 'auth logout'
            printf '%s\n' 
        case 'config'
            printf '%s\n' list get set profiles use
        case 'config list'
            printf '%s\n' 
        case 'config get'
            printf '%s\n' 
        case 'config set'
            printf '%s\n' 
        case 'config profiles'
            printf '%s\n' 
        case 'config use'
            printf '%s\n' 
        case 'sync'
            printf '%s\n' fixed-recurring/short-urls fr/short-urls fixed-recurring/billings fr/billings fixed-recurring/cancellations fr/cancellations variable-recurring/cancellations vr/cancellations variable-recurring/cancellation-requests vr/cancellation-requests variable-recurring/transfers vr/transfers on-demand/short-urls od/short-urls on-demand/transfers od/transfers one-time/payments ot/payments one-time/transfers ot/transfers wallet-to-wallet/payments w2w/payments wallet-to-wallet/transfers w2w/transfers scheduled-payments/transfers sp/transfers dollar-cost-average/executions dca/executions
        case 'sql'
            printf '%s\n' 
        case 'db'
            printf '%s\n' init grant-reader
        case 'db init'
            printf '%s\n' 
        case 'db grant-reader'
            printf '%s\n' 
        case 'verify'
            printf '%s\n' ack acks
        case 'verify ack'
            printf '%s\n' 
        case 'verify acks'
            printf '%s\n' 
        case 'rates'
            printf '%s\n' sync import feeds check
        case 'rates sync'
            printf '%s\n' 
        case 'rates import'
            printf '%s\n' 
        case 'rates feeds'
            printf '%s\n' 
        case 'rates check'
            printf '%s\n' 
        case 'subscriptions'
            printf '%s\n' 
        case 'metrics'
            printf '%s\n' 
        case 'close'
            printf '%s\n' 
        case 'api'
            printf '%s\n' 
        case 'doctor'
            printf '%s\n' 
        case 'completion'
            printf '%s\n' bash zsh fish
        case 'help'
            printf '%s\n' reference fixed-recurring variable-recurring on-demand one-time wallet-to-wallet scheduled-payments dollar-cost-average webhook-notifications transfers emulator auth config sync sql db verify rates subscriptions metrics close api doctor completion
        case '*'
            return 1
    end
end
function __payrec_flags
    switch "$argv[1]"
        case ''
            printf '%s\n' --version -V --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring short-urls'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring short-urls list'
            printf '%s\n' --plan-id --limit --all --page-size --offset --concurrency --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring short-urls get'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring short-urls delete'
            printf '%s\n' --yes -y --ignore-missing --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring short-urls create'
            printf '%s\n' --name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring short-urls update'
            printf '%s\n' --name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring billings'
            printf '%s\n' --plan-id --subscription-id --triggered-by --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring cancellations'
            printf '%s\n' --plan-id --triggered-by --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring cancellation'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring webhook'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring webhook get'
            printf '%s\n' --plan-id --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring webhook delete'
            printf '%s\n' --plan-id --yes -y --ignore-missing --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring webhook set'
            printf '%s\n' --plan-id --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring plans'
            printf '%s\n' --db --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring plans add'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'fixed-recurring plans remove'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'variable-recurring'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'variable-recurring cancellations'
            printf '%s\n' --plan-id --triggered-by --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'variable-recurring cancellation'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'variable-recurring cancellation-requests'
            printf '%s\n' --plan-id --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'variable-recurring cancellation-request'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'variable-recurring transfers'
            printf '%s\n' --plan-id --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand short-urls'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand short-urls list'
            printf '%s\n' --plan-id --limit --all --page-size --offset --concurrency --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand short-urls get'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand short-urls delete'
            printf '%s\n' --yes -y --ignore-missing --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand short-urls create'
            printf '%s\n' --name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand short-urls update'
            printf '%s\n' --name --plan-id --success-url --error-url --extra --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'on-demand transfers'
            printf '%s\n' --plan-id --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'one-time'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'one-time payments'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'one-time payments list'
            printf '%s\n' --transaction-hash --tag --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'one-time payments get'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'one-time transfers'
            printf '%s\n' --tag --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'wallet-to-wallet'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'wallet-to-wallet payments'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'wallet-to-wallet payments list'
            printf '%s\n' --tag --receiver --token --email --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'wallet-to-wallet payments get'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'wallet-to-wallet transfers'
            printf '%s\n' --email --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'scheduled-payments'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'scheduled-payments transfers'
            printf '%s\n' --schedule-id --sender --receiver --token --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'dollar-cost-average'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'dollar-cost-average executions'
            printf '%s\n' --strategy-id --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --token --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'webhook-notifications'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'webhook-notifications get'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'webhook-notifications verify'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'webhook-notifications listen'
            printf '%s\n' --port --host --forward-to --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'transfers'
            printf '%s\n' --product --plan-id --sender --receiver --token --tag --email --schedule-id --triggered-by --db --from --to --period --sort --limit --all --page-size --offset --concurrency --summary --chart --follow --interval --lookback --verify --verdict --confirmations --currency --rates --rate-max-age --rates-missing --status --failed --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'emulator'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'emulator start'
            printf '%s\n' --port --host --allow-remote --webhook-hosts --records --seed --now --fault-rate --fault-kinds --fault-seed --latency --rate-limit --live --late-fraction --late-max --pending-fraction --remove-fraction --move-fraction --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'emulator trigger'
            printf '%s\n' --plan-id --type --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'auth'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'auth login'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'auth status'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'auth logout'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'config'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'config list'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'config get'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'config set'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'config profiles'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'config use'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'sync'
            printf '%s\n' --plan-id --strategy-id --db --lookback --from --full --concurrency --parquet --wait --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'sql'
            printf '%s\n' --file --db --limit --all --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'db'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'db init'
            printf '%s\n' --db --print-sql --writer --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'db grant-reader'
            printf '%s\n' --db --print-sql --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'verify'
            printf '%s\n' --db --fail-if-any --new --recheck --from --to --period --confirmations --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'verify ack'
            printf '%s\n' --reason --by --db --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'verify acks'
            printf '%s\n' --db --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'rates'
            printf '%s\n' --token --from --to --db --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'rates sync'
            printf '%s\n' --currency --from --to --db --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'rates import'
            printf '%s\n' --db --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'rates feeds'
            printf '%s\n' --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'rates check'
            printf '%s\n' --db --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'subscriptions'
            printf '%s\n' --plan-id --at --grace --db --sync --short-url-plans --state --past-due-for --period --from --to --currency --rates --rate-max-age --rates-missing --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'metrics'
            printf '%s\n' --plan-id --at --grace --db --sync --short-url-plans --period --from --to --interval --by --chart --movements --currency --rates --rate-max-age --rates-missing --count --fail-if-any --jq --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'close'
            printf '%s\n' --plan-id --at --grace --db --sync --short-url-plans --verify --confirmations --fail-if-any --currency --rates --rate-max-age --rates-missing --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'api'
            printf '%s\n' --method -X --query --body --all --profile --chain --base-url --rpc --emulator --format -f --columns --flatten --output -o --tz --time-format --wide --csv-raw --bom --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'doctor'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'completion'
            printf '%s\n' --profile --chain --base-url --rpc --emulator --format -f --tz --strict --quiet -q --debug --no-color --timeout --retries --dry-run --help
        case 'help'
            printf '%s\n' --help
        case '*'
            return 1
    end
end
function __payrec_values
    switch "$argv[1]"
        case '--format'
            printf '%s\n' table json jsonl csv xlsx html
        case '-f'
            printf '%s\n' table json jsonl csv xlsx html
        case '--sort'
            printf '%s\n' asc desc
        case '--chain'
            printf '%s\n' bsc ethereum polygon sandbox
        case '--flatten'
            printf '%s\n' receivers swaps
        case '--chart'
            printf '%s\n' day week month
        case '--time-format'
            printf '%s\n' unix iso
        case '--period'
            printf '%s\n' today yesterday this-month last-month last-quarter last-year
        case '--tz'
            printf '%s\n' UTC Africa/Abidjan Africa/Accra Africa/Addis_Ababa Africa/Algiers Africa/Asmera Africa/Bamako Africa/Bangui Africa/Banjul Africa/Bissau Africa/Blantyre Africa/Brazzaville Africa/Bujumbura Africa/Cairo Africa/Casablanca Africa/Ceuta Africa/Conakry Africa/Dakar Africa/Dar_es_Salaam Africa/Djibouti Africa/Douala Africa/El_Aaiun Africa/Freetown Africa/Gaborone Africa/Harare Africa/Johannesburg Africa/Juba Africa/Kampala Africa/Khartoum Africa/Kigali Africa/Kinshasa Africa/Lagos Africa/Libreville Africa/Lome Africa/Luanda Africa/Lubumbashi Africa/Lusaka Africa/Malabo Africa/Maputo Africa/Maseru Africa/Mbabane Africa/Mogadishu Africa/Monrovia Africa/Nairobi Africa/Ndjamena Africa/Niamey Africa/Nouakchott Africa/Ouagadougou Africa/Porto-Novo Africa/Sao_Tome Africa/Tripoli Africa/Tunis Africa/Windhoek America/Adak America/Anchorage America/Anguilla America/Antigua America/Araguaina America/Argentina/La_Rioja America/Argentina/Rio_Gallegos America/Argentina/Salta America/Argentina/San_Juan America/Argentina/San_Luis America/Argentina/Tucuman America/Argentina/Ushuaia America/Aruba America/Asuncion America/Bahia America/Bahia_Banderas America/Barbados America/Belem America/Belize America/Blanc-Sablon America/Boa_Vista America/Bogota America/Boise America/Buenos_Aires America/Cambridge_Bay America/Campo_Grande America/Cancun America/Caracas America/Catamarca America/Cayenne America/Cayman America/Chicago America/Chihuahua America/Ciudad_Juarez America/Coral_Harbour America/Cordoba America/Costa_Rica America/Coyhaique America/Creston America/Cuiaba America/Curacao America/Danmarkshavn America/Dawson America/Dawson_Creek America/Denver America/Detroit America/Dominica America/Edmonton America/Eirunepe America/El_Salvador America/Fort_Nelson America/Fortaleza America/Glace_Bay America/Godthab America/Goose_Bay America/Grand_Turk America/Grenada America/Guadeloupe America/Guatemala America/Guayaquil America/Guyana America/Halifax America/Havana America/Hermosillo America/Indiana/Knox America/Indiana/Marengo America/Indiana/Petersburg America/Indiana/Tell_City America/Indiana/Vevay America/Indiana/Vincennes America/Indiana/Winamac America/Indianapolis America/Inuvik America/Iqaluit America/Jamaica America/Jujuy America/Juneau America/Kentucky/Monticello America/Kralendijk America/La_Paz America/Lima America/Los_Angeles America/Louisville America/Lower_Princes America/Maceio America/Managua America/Manaus America/Marigot America/Martinique America/Matamoros America/Mazatlan America/Mendoza America/Menominee America/Merida America/Metlakatla America/Mexico_City America/Miquelon America/Moncton America/Monterrey America/Montevideo America/Montserrat America/Nassau America/New_York America/Nome America/Noronha America/North_Dakota/Beulah America/North_Dakota/Center America/North_Dakota/New_Salem America/Ojinaga America/Panama America/Paramaribo America/Phoenix America/Port-au-Prince America/Port_of_Spain America/Porto_Velho America/Puerto_Rico America/Punta_Arenas America/Rankin_Inlet America/Recife America/Regina America/Resolute America/Rio_Branco America/Santarem America/Santiago America/Santo_Domingo America/Sao_Paulo America/Scoresbysund America/Sitka America/St_Barthelemy America/St_Johns America/St_Kitts America/St_Lucia America/St_Thomas America/St_Vincent America/Swift_Current America/Tegucigalpa America/Thule America/Tijuana America/Toronto America/Tortola America/Vancouver America/Whitehorse America/Winnipeg America/Yakutat Antarctica/Casey Antarctica/Davis Antarctica/DumontDUrville Antarctica/Macquarie Antarctica/Mawson Antarctica/McMurdo Antarctica/Palmer Antarctica/Rothera Antarctica/Syowa Antarctica/Troll Antarctica/Vostok Arctic/Longyearbyen Asia/Aden Asia/Almaty Asia/Amman Asia/Anadyr Asia/Aqtau Asia/Aqtobe Asia/Ashgabat Asia/Atyrau Asia/Baghdad Asia/Bahrain Asia/Baku Asia/Bangkok Asia/Barnaul Asia/Beirut Asia/Bishkek Asia/Brunei Asia/Calcutta Asia/Chita Asia/Colombo Asia/Damascus Asia/Dhaka Asia/Dili Asia/Dubai Asia/Dushanbe Asia/Famagusta Asia/Gaza Asia/Hebron Asia/Hong_Kong Asia/Hovd Asia/Irkutsk Asia/Jakarta Asia/Jayapura Asia/Jerusalem Asia/Kabul Asia/Kamchatka Asia/Karachi Asia/Katmandu Asia/Khandyga Asia/Krasnoyarsk Asia/Kuala_Lumpur Asia/Kuching Asia/Kuwait Asia/Macau Asia/Magadan Asia/Makassar Asia/Manila Asia/Muscat Asia/Nicosia Asia/Novokuznetsk Asia/Novosibirsk Asia/Omsk Asia/Oral Asia/Phnom_Penh Asia/Pontianak Asia/Pyongyang Asia/Qatar Asia/Qostanay Asia/Qyzylorda Asia/Rangoon Asia/Riyadh Asia/Saigon Asia/Sakhalin Asia/Samarkand Asia/Seoul Asia/Shanghai Asia/Singapore Asia/Srednekolymsk Asia/Taipei Asia/Tashkent Asia/Tbilisi Asia/Tehran Asia/Thimphu Asia/Tokyo Asia/Tomsk Asia/Ulaanbaatar Asia/Urumqi Asia/Ust-Nera Asia/Vientiane Asia/Vladivostok Asia/Yakutsk Asia/Yekaterinburg Asia/Yerevan Atlantic/Azores Atlantic/Bermuda Atlantic/Canary Atlantic/Cape_Verde Atlantic/Faeroe Atlantic/Madeira Atlantic/Reykjavik Atlantic/South_Georgia Atlantic/St_Helena Atlantic/Stanley Australia/Adelaide Australia/Brisbane Australia/Broken_Hill Australia/Darwin Australia/Eucla Australia/Hobart Australia/Lindeman Australia/Lord_Howe Australia/Melbourne Australia/Perth Australia/Sydney Europe/Amsterdam Europe/Andorra Europe/Astrakhan Europe/Athens Europe/Belgrade Europe/Berlin Europe/Bratislava Europe/Brussels Europe/Bucharest Europe/Budapest Europe/Busingen Europe/Chisinau Europe/Copenhagen Europe/Dublin Europe/Gibraltar Europe/Guernsey Europe/Helsinki Europe/Isle_of_Man Europe/Istanbul Europe/Jersey Europe/Kaliningrad Europe/Kiev Europe/Kirov Europe/Lisbon Europe/Ljubljana Europe/London Europe/Luxembourg Europe/Madrid Europe/Malta Europe/Mariehamn Europe/Minsk Europe/Monaco Europe/Moscow Europe/Oslo Europe/Paris Europe/Podgorica Europe/Prague Europe/Riga Europe/Rome Europe/Samara Europe/San_Marino Europe/Sarajevo Europe/Saratov Europe/Simferopol Europe/Skopje Europe/Sofia Europe/Stockholm Europe/Tallinn Europe/Tirane Europe/Ulyanovsk Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Vilnius Europe/Volgograd Europe/Warsaw Europe/Zagreb Europe/Zurich Indian/Antananarivo Indian/Chagos Indian/Christmas Indian/Cocos Indian/Comoro Indian/Kerguelen Indian/Mahe Indian/Maldives Indian/Mauritius Indian/Mayotte Indian/Reunion Pacific/Apia Pacific/Auckland Pacific/Bougainville Pacific/Chatham Pacific/Easter Pacific/Efate Pacific/Enderbury Pacific/Fakaofo Pacific/Fiji Pacific/Funafuti Pacific/Galapagos Pacific/Gambier Pacific/Guadalcanal Pacific/Guam Pacific/Honolulu Pacific/Kiritimati Pacific/Kosrae Pacific/Kwajalein Pacific/Majuro Pacific/Marquesas Pacific/Midway Pacific/Nauru Pacific/Niue Pacific/Norfolk Pacific/Noumea Pacific/Pago_Pago Pacific/Palau Pacific/Pitcairn Pacific/Ponape Pacific/Port_Moresby Pacific/Rarotonga Pacific/Saipan Pacific/Tahiti Pacific/Tarawa Pacific/Tongatapu Pacific/Truk Pacific/Wake Pacific/Wallis
        case '--product'
            printf '%s\n' variable-recurring vr on-demand od one-time ot wallet-to-wallet w2w scheduled-payments sp fixed-recurring fr
        case '*'
            return 1
    end
end
function __payrec_columns
    switch "$argv[1]"
        case 'fixed-recurring short-urls list'
            printf '%s\n' path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link
        case 'fixed-recurring short-urls get'
            printf '%s\n' path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link
        case 'fixed-recurring billings'
            printf '%s\n' subscriptionId success amount fee token receiver timestamp cycleStart cycleEnd triggeredBy transactionHash transactionStatus outcome
        case 'fixed-recurring cancellations'
            printf '%s\n' subscriptionId timestamp forced triggeredBy transactionHash transactionStatus
        case 'fixed-recurring cancellation'
            printf '%s\n' subscriptionId timestamp forced triggeredBy transactionHash transactionStatus
        case 'fixed-recurring webhook get'
            printf '%s\n' webhook
        case 'fixed-recurring plans'
            printf '%s\n' planId token amount period periodInWords subscriptions counted seenIn
        case 'variable-recurring cancellations'
            printf '%s\n' subscriptionId timestamp forced triggeredBy transactionHash transactionStatus
        case 'variable-recurring cancellation'
            printf '%s\n' subscriptionId timestamp forced triggeredBy transactionHash transactionStatus
        case 'variable-recurring cancellation-requests'
            printf '%s\n' subscriptionId timestamp transactionHash transactionStatus
        case 'variable-recurring cancellation-request'
            printf '%s\n' subscriptionId timestamp transactionHash transactionStatus
        case 'variable-recurring transfers'
            printf '%s\n' description amount fee token category timestamp transactionHash transactionStatus sender receiver planId subscriptionId
        case 'on-demand short-urls list'
            printf '%s\n' path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link
        case 'on-demand short-urls get'
            printf '%s\n' path name planId createdAt updatedAt params params.callbackSuccess params.callbackError params.extra link
        case 'on-demand transfers'
            printf '%s\n' description amount fee token category timestamp transactionHash transactionStatus sender receiver planId subscriptionId
        case 'one-time payments list'
            printf '%s\n' id description sender token category tag timestamp transactionHash transactionStatus receivers receivers.user receivers.amount receivers.fee
        case 'one-time payments get'
            printf '%s\n' id description sender token category tag timestamp transactionHash transactionStatus receivers receivers.user receivers.amount receivers.fee
        case 'one-time transfers'
            printf '%s\n' description amount fee token category timestamp transactionHash transactionStatus sender receiver oneTimeId
        case 'wallet-to-wallet payments list'
            printf '%s\n' id description email token category tag timestamp serviceFee receivers receivers.user receivers.amount receivers.fee receivers.timestamp receivers.transactionHash receivers.transactionStatus
        case 'wallet-to-wallet payments get'
            printf '%s\n' id description email token category tag timestamp serviceFee receivers receivers.user receivers.amount receivers.fee receivers.timestamp receivers.transactionHash receivers.transactionStatus
        case 'wallet-to-wallet transfers'
            printf '%s\n' description amount fee token category timestamp transactionHash transactionStatus email receiver payment_id
        case 'scheduled-payments transfers'
            printf '%s\n' description amount fee token category timestamp transactionHash transactionStatus sender receiver scheduleId
        case 'dollar-cost-average executions'
            printf '%s\n' strategyId timestamp transactionHash transactionStatus inputToken fee swaps swaps.inputAmount swaps.outputAmount swaps.outputToken
        case 'webhook-notifications get'
            printf '%s\n' id type event timestamp transactionHash transactionStatus data extra
        case 'transfers'
            printf '%s\n' product description amount fee token category timestamp transactionHash transactionStatus sender receiver planId subscriptionId oneTimeId email payment_id scheduleId success cycleStart cycleEnd triggeredBy outcome
        case 'sync'
            printf '%s\n' collection table fetched new updated unchanged deleted requests seconds note
        case 'verify'
            printf '%s\n' collection checked newlyReorged new acked pending missing reorged unconfirmed reverted spoofed mismatch verified note
        case 'verify ack'
            printf '%s\n' transactionHash verdict collection reason ackedBy ackedAt
        case 'verify acks'
            printf '%s\n' transactionHash verdict collection reason ackedBy ackedAt
        case 'rates'
            printf '%s\n' time chain token currency rate source address note feed description phase roundId answer decimals file line sha256
        case 'rates feeds'
            printf '%s\n' token pair feed status description decimals phase round rate updatedAt problem
        case 'rates check'
            printf '%s\n' line token currency time rate feed round until verdict problem
        case 'subscriptions'
            printf '%s\n' subscriptionId planId token amount period mrr started paidThrough lastAttempt failedAttempts cancelledAt forced endsAt daysPastDue state
        case 'metrics'
            printf '%s\n' from to token subscriptions_start subscriptions_end new reactivated churned mrr_start mrr_end mrr_new mrr_reactivated mrr_churned mrr_net logo_churn revenue_churn attempts failed failure_rate dunning_cases recovered recovered_amount lost open collected failed_amount planId interval
        case 'doctor'
            printf '%s\n' check status detail
        case '*'
            return 1
    end
end
function __payrec_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l skip 0
    for w in $words[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $w
            contains -- $w --at --base-url --body --by --chain --chart --columns --concurrency --confirmations --currency --db --email --error-url --extra --fail-if-any --fault-kinds --fault-rate --fault-seed --file --flatten --format --forward-to --from --grace --host --interval --jq --late-fraction --late-max --latency --limit --live --lookback --method --move-fraction --name --now --offset --output --page-size --parquet --past-due-for --pending-fraction --period --plan-id --port --product --profile --query --rate-limit --rate-max-age --rates --rates-missing --reason --receiver --recheck --records --remove-fraction --retries --rpc --schedule-id --seed --sender --sort --state --status --strategy-id --subscription-id --success-url --tag --time-format --timeout --to --token --transaction-hash --triggered-by --type --tz --verdict --wait --webhook-hosts --writer -X -f -o; and set skip 1
            continue
        end
        set -l next (__payrec_child "$cmdpath" $w); and set cmdpath $next
    end
    set -l prev $words[-1]
    __payrec_values $prev; and return
    if test "$prev" = --columns
        # A comma-separated list: keep what is before the last comma, complete the field after it.
        set -l before (string replace -r '[^,]*$' '' -- $cur)
        for field in (__payrec_columns $cmdpath)
            echo $before$field
        end
        return
    end
    if contains -- $prev -o --output
        __fish_complete_path $cur
        return
    end
    contains -- $prev --at --base-url --body --by --chain --chart --columns --concurrency --confirmations --currency --db --email --error-url --extra --fail-if-any --fault-kinds --fault-rate --fault-seed --file --flatten --format --forward-to --from --grace --host --interval --jq --late-fraction --late-max --latency --limit --live --lookback --method --move-fraction --name --now --offset --output --page-size --parquet --past-due-for --pending-fraction --period --plan-id --port --product --profile --query --rate-limit --rate-max-age --rates --rates-missing --reason --receiver --recheck --records --remove-fraction --retries --rpc --schedule-id --seed --sender --sort --state --status --strategy-id --subscription-id --success-url --tag --time-format --timeout --to --token --transaction-hash --triggered-by --type --tz --verdict --wait --webhook-hosts --writer -X -f -o; and return
    if string match -q -- '-*' $cur
        __payrec_flags $cmdpath
    else
        __payrec_words $cmdpath
    end
end
complete -c payrec -f -a '(__payrec_complete)'
