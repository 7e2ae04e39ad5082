// A trivial dynamic resource: proves the engine loop without the service.
const pulumi = require("@pulumi/pulumi");

const provider = {
  async create(inputs) {
    await new Promise((resolve) => setTimeout(resolve, inputs.delayMs));
    return { id: `thing-${inputs.value}`, outs: inputs };
  },
  async read(id, props) {
    return { id, props };
  },
  async diff(_id, olds, news) {
    return { changes: olds.value !== news.value };
  },
  async delete() {},
};

module.exports = async () => {
  const config = new pulumi.Config();
  const thing = new pulumi.dynamic.Resource(provider, "thing", {
    value: config.get("value") ?? "a",
    delayMs: Number(config.get("delayMs") ?? 0),
  });
  return { thingId: thing.id };
};
