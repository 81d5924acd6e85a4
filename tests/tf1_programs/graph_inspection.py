"""Looking at the graph the way TensorFlow 1 code and its debugging sessions do.

``print(tensor)``, a tensor's name, shape, dtype and op type, name scopes and the ``_1`` suffixes
of repeated names, ``get_tensor_by_name``/``get_operation_by_name``, an op's inputs and outputs,
the node list of ``as_graph_def()`` with each node's op type, and a fetch by name.
"""

import ember.compat.v1 as tf  # noqa: I001 - the one line a TensorFlow user changes
import numpy as np


def main():
    tf.disable_v2_behavior()
    graph = tf.get_default_graph()
    x = tf.placeholder(tf.float32, shape=[None, 3], name="input")
    k = tf.constant(2)
    w = tf.Variable(np.ones((3, 2), np.float32), name="weights")
    with tf.name_scope("layer"):
        product = tf.matmul(x, w)
        shifted = product + 1.5
        again = product + 1.5
        activated = tf.nn.relu(shifted, name="act")
    with tf.name_scope("layer"):
        other = tf.identity(again)
    total = tf.reduce_sum(activated, axis=1, keepdims=True)
    label = tf.constant("hello")
    integer_sum = k * 3 + 1

    for tensor in [x, k, w, product, shifted, again, activated, other, total, label, integer_sum]:
        print(tensor)
    for tensor in [x, product, shifted, activated, other, total, label, integer_sum]:
        print(tensor.name, tensor.op.type, tensor.op.name, tensor.dtype.name, tensor.shape, tensor.value_index)
    print("variable", w.name, w.op.type, w.initial_value.op.type, w.value().op.type)
    print("inputs of", shifted.op.name, [t.name for t in shifted.op.inputs], "outputs", [t.name for t in shifted.op.outputs])
    print("by name", graph.get_tensor_by_name("layer/act:0") is activated, graph.get_operation_by_name("layer/act").type)
    print("operations", len(graph.get_operations()), "first", [op.name for op in graph.get_operations()[:3]])

    graph_def = graph.as_graph_def()
    print("nodes", [n.name for n in graph_def.node])
    print("types", [n.op for n in graph_def.node])
    node = next(n for n in graph_def.node if n.name == "input")
    print("placeholder attrs", sorted(node.attr), tf.as_dtype(node.attr["dtype"].type).name)
    print("matmul inputs", next(n for n in graph_def.node if n.name == "layer/MatMul").input)
    print("graph version positive:", graph.version > 0, "finalized:", graph.finalized)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run("Sum:0", feed_dict={"input:0": [[1.0, 2.0, -3.0], [0.5, 0.5, 0.5]]})
        print("fetched by name", value.tolist(), sess.run(integer_sum), sess.run(label))
    print("shape of a fed batch", tf.TensorShape([None, 3]).merge_with(tf.TensorShape([2, None])))


if __name__ == "__main__":
    main()
