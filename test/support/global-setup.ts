import '../../server/runtime/require-node';

export default function setup(): void {}
