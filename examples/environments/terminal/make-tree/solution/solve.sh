#!/bin/bash
set -e
mkdir -p /app/project/src /app/project/docs /app/project/build
printf '#!/bin/bash\necho hello\n' > /app/project/src/main.sh
chmod +x /app/project/src/main.sh
printf '# project\n\nA skeleton.\n' > /app/project/docs/README.md
